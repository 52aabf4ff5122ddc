package org.edgebridge.worker;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;

/**
 * Libraries that catch an {@link Error} and only log it leave a zombie: Moquette 0.17's protocol handler catches
 * every Throwable of a packet and logs it (the connection is closed, the broker goes on, maybe without its memory);
 * Netty logs a failed event-loop task ("A task raised an exception"); Jetty's pool logs a failed job. None of that
 * reaches an uncaught-exception handler. So every WARN or ERROR line logged by a library (any logger outside
 * {@code org.edgebridge}, whose code hands its Errors to {@link FatalErrors} itself) that carries an Error, or an
 * exception that wraps one, halts the process as {@link FatalErrors} does, before the line is written. Proven by
 * {@code FatalErrorsInLibrariesIT}.
 *
 * <p>Installed by {@link FatalErrors#haltOnAnyError} on logback's context; a no-op under another logging backend.
 */
final class ErrorsInLibraryLogs extends TurboFilter {
    static void install() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            ErrorsInLibraryLogs filter = new ErrorsInLibraryLogs();
            filter.setName("halt-on-errors-in-library-logs");
            filter.start();
            context.addTurboFilter(filter);
        }
    }

    @Override
    public FilterReply decide(
            @Nullable Marker marker,
            @Nullable Logger logger,
            @Nullable Level level,
            @Nullable String format,
            Object @Nullable [] params,
            @Nullable Throwable t) {
        if (logger == null
                || level == null
                || !level.isGreaterOrEqual(Level.WARN)
                || logger.getName().startsWith("org.edgebridge")) {
            return FilterReply
                    .NEUTRAL; // below WARN: a library probing (Netty's native libraries log an UnsatisfiedLinkError at
            // DEBUG)
        }
        Throwable thrown = t != null
                ? t
                : params != null && params.length > 0 && params[params.length - 1] instanceof Throwable last
                        ? last
                        : null;
        if (thrown != null) {
            FatalErrors.haltIfFatal(Thread.currentThread(), thrown);
        }
        return FilterReply.NEUTRAL;
    }
}
