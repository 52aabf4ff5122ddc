/**
 * The bridge's long-running threads and what happens when one dies ({@link org.edgebridge.worker.Workers}), the
 * process's answer to an {@link Error} on any thread ({@link org.edgebridge.worker.FatalErrors}), and the test hook
 * that makes a worker die ({@link org.edgebridge.worker.TestFault}, inert unless a system property is set).
 *
 * <p>Threads: the workers it makes ({@code intake-writer}, {@code forwarder}); {@code worker-died}, which runs the
 * death action once.
 *
 * <p>Guarantees: a dead worker makes the bridge not ready and, in {@code run}, exit with {@code
 * ExitCodes.WORKER_DIED}; an Error halts the process at once with the same code.
 */
package org.edgebridge.worker;
