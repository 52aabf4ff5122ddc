/**
 * Where a command's time goes between its commit and its final receipt ({@link org.edgebridge.trace.CommandTrace}),
 * for the benchmark's B3 breakdown (docs/BENCHMARKS.md). Off unless {@code -Dedgebridge.trace=true}; when off, each
 * call is a read of a constant.
 *
 * <p>Threads: none of its own; thread-safe.
 */
@NullMarked
package org.edgebridge.trace;

import org.jspecify.annotations.NullMarked;
