/**
 * Value types for settings: {@link org.edgebridge.unit.DataSize}, an amount of bytes (time is a
 * {@link java.time.Duration}). Depends on nothing of the bridge.
 */
@NullMarked
package org.edgebridge.unit;

import org.jspecify.annotations.NullMarked;
