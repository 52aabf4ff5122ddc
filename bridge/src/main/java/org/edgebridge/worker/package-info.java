/**
 * The bridge's long-running threads and what happens when one dies ({@link org.edgebridge.worker.Workers}), the
 * process's answer to an {@link Error} on any thread ({@link org.edgebridge.worker.FatalErrors}). Tests make a worker
 * die with the one test hook, {@code org.edgebridge.hook.TestHook} ({@code -Dedgebridge.test.hook=POINT:error}).
 *
 * <p>Threads: the workers it makes ({@code intake-writer}, {@code forwarder}); {@code worker-died}, which runs the
 * death action once.
 *
 * <p>Guarantees: a dead worker makes the bridge not ready and, in {@code run}, exit with {@code
 * ExitCodes.WORKER_DIED}; an Error halts the process at once with the same code.
 */
@NullMarked
package org.edgebridge.worker;

import org.jspecify.annotations.NullMarked;
