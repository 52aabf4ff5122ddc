/**
 * What every part shares and may depend on: {@link org.edgebridge.lifecycle.Component} (start, close with a budget),
 * {@link org.edgebridge.lifecycle.Once} (both idempotent), {@link org.edgebridge.lifecycle.StopWatchdog} (a stop that
 * hangs logs every thread's stack) and the process's {@link org.edgebridge.lifecycle.ExitCodes}.
 *
 * <p>Threads: {@code stop-watchdog}, a daemon, while a stop is watched.
 */
@NullMarked
package org.edgebridge.lifecycle;

import org.jspecify.annotations.NullMarked;
