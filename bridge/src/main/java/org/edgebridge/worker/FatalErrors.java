package org.edgebridge.worker;

import org.edgebridge.lifecycle.ExitCodes;
import org.jspecify.annotations.Nullable;
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
 * An Error wrapped in an exception is as fatal ({@link #errorIn}).
 *
 * <p>An exception that is not an Error and ends a thread that is not a worker is logged; the thread's owner decides.
 */
public final class FatalErrors {
    private static final Logger LOG = LoggerFactory.getLogger(FatalErrors.class);
    /** How deep a cause chain is searched for an Error (a chain may be long, or, built badly, a loop). */
    private static final int MAX_CAUSES = 32;

    private static volatile boolean halting;

    private FatalErrors() {}

    /**
     * Installs the default uncaught-exception handler that halts on an Error, and {@link ErrorsInLibraryLogs}, which
     * halts when a library logs an Error it caught (Moquette's protocol handler, Netty's event-loop tasks, Jetty's
     * pool): caught and logged, it would leave a zombie. For {@code run} and {@code demo}.
     */
    public static void haltOnAnyError() {
        halting = true;
        Thread.setDefaultUncaughtExceptionHandler(FatalErrors::uncaught);
        ErrorsInLibraryLogs.install();
    }

    /**
     * A task for a {@link java.util.concurrent.ScheduledExecutorService}: an Error would only end the schedule,
     * silently (it is kept in the task's future, which nobody reads), so it goes to the thread's uncaught-exception
     * handler (which halts in {@code run}) and is rethrown. An exception is the task's own to handle.
     */
    public static Runnable scheduled(Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (Error e) {
                Thread t = Thread.currentThread();
                t.getUncaughtExceptionHandler().uncaughtException(t, e);
                throw e;
            }
        };
    }

    /**
     * For code that catches every Throwable itself, so that no thread ends (Netty's pipeline hands a handler's Error
     * to {@code exceptionCaught}): halts as for an uncaught Error when {@code t} is or wraps one, once
     * {@link #haltOnAnyError} is installed (a test's JVM is not halted); otherwise returns.
     */
    public static void haltIfFatal(Thread thread, Throwable t) {
        Error error = halting ? errorIn(t) : null;
        if (error != null) {
            halt(thread, error, t);
        }
    }

    /**
     * The Error that {@code t} is or wraps (Moquette and Netty wrap what they catch in exceptions of their own), or
     * null. Allocates nothing: it runs when the heap may be exhausted.
     */
    static @Nullable Error errorIn(Throwable t) {
        Throwable at = t;
        for (int i = 0; at != null && i < MAX_CAUSES; i++) {
            if (at instanceof Error e) {
                return e;
            }
            at = at.getCause();
        }
        return null;
    }

    private static void uncaught(Thread thread, Throwable t) {
        Error error = errorIn(t);
        if (error == null) {
            LOG.error("thread {} ended with an exception", thread.getName(), t);
            return;
        }
        halt(thread, error, t);
    }

    private static void halt(Thread thread, Error error, Throwable t) {
        try {
            LOG.error(
                    "fatal: thread {} died of {}; the bridge halts now with exit code {} so that its supervisor starts "
                            + "it again",
                    thread.getName(),
                    error,
                    ExitCodes.WORKER_DIED,
                    t);
        } catch (Throwable ignored) {
            // logging may fail under OutOfMemoryError: halt all the same
        }
        Runtime.getRuntime().halt(ExitCodes.WORKER_DIED);
    }
}
