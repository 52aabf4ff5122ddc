/**
 * The product's one test hook ({@link org.edgebridge.hook.TestHook}): named points between durable steps where a test
 * started with {@code -Dedgebridge.test.hook} holds a thread for a {@code kill -9} or makes a worker fail. Off in
 * production (no property, no effect); depends on nothing of the bridge, so that every feature may mark its points.
 */
@NullMarked
package org.edgebridge.hook;

import org.jspecify.annotations.NullMarked;
