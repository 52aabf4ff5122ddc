package org.edgebridge.worker;

import org.slf4j.Logger;

/**
 * A periodic task for a {@link java.util.concurrent.ScheduledExecutorService}, guarded: a RuntimeException costs one
 * run and a log line, and an Error goes to the thread's uncaught-exception handler ({@link FatalErrors} halts) instead
 * of silently ending the schedule, which is what a scheduled task's Throwable would otherwise do.
 */
public final class GuardedRuns {
    private GuardedRuns() {}

    /** @param oneFailureCosts what a failed run means, for the log line, e.g. "disk forecast sample failed" */
    public static Runnable of(Runnable task, Logger log, String oneFailureCosts) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                log.warn("{}: {}", oneFailureCosts, e.toString());
            } catch (Error e) {
                Thread t = Thread.currentThread();
                t.getUncaughtExceptionHandler().uncaughtException(t, e);
                throw e;
            }
        };
    }
}
