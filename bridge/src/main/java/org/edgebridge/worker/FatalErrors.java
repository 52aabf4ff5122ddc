package org.edgebridge.worker;

import org.edgebridge.lifecycle.ExitCodes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process's answer to an {@link Error} (OutOfMemoryError, StackOverflowError, InternalError) that ends any thread:
 * the bridge's workers, Jetty's, the HTTP client's, Moquette's. It logs one line and halts the JVM at once with
 * {@link ExitCodes#WORKER_DIED}, whatever the JVM flags ({@code -XX:+ExitOnOutOfMemoryError} does the same for an
 * OutOfMemoryError, with the same code, when the service unit sets it). No graceful stop: after an Error the heap may
 * be exhausted and a stop may hang, leaving a process that holds the data dir's lock, answers nothing and ignores
 * SIGTERM. The outbox is safe against a halt (it is tested with kill -9); the supervisor starts the bridge again.
 *
 * <p>An exception that is not an Error and ends a thread that is not a worker is logged; the thread's owner decides.
 */
public final class FatalErrors {
    private static final Logger LOG = LoggerFactory.getLogger(FatalErrors.class);

    private FatalErrors() {}

    /** Installs the default uncaught-exception handler that halts on an Error. For {@code run} and {@code demo}. */
    public static void haltOnAnyError() {
        Thread.setDefaultUncaughtExceptionHandler(FatalErrors::uncaught);
    }

    private static void uncaught(Thread thread, Throwable t) {
        if (!(t instanceof Error)) {
            LOG.error("thread {} ended with an exception", thread.getName(), t);
            return;
        }
        try {
            LOG.error("fatal: thread {} died of {}; the bridge halts now with exit code {} so that its supervisor starts "
                    + "it again", thread.getName(), t, ExitCodes.WORKER_DIED, t);
        } catch (Throwable ignored) {
            // logging may fail under OutOfMemoryError: halt all the same
        }
        Runtime.getRuntime().halt(ExitCodes.WORKER_DIED);
    }
}
