/**
 * Where a command's time goes between its commit and its final receipt ({@link org.edgebridge.trace.CommandTrace}),
 * as JDK Flight Recorder events that only a recording enabling them collects: the benchmark's B3 breakdown
 * (docs/BENCHMARKS.md), or an operator's recording. Nothing is kept in the bridge.
 *
 * <p>Threads: none of its own; thread-safe.
 */
@NullMarked
package org.edgebridge.trace;

import org.jspecify.annotations.NullMarked;
