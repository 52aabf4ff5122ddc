package org.edgebridge.trace;

import java.util.function.ToLongFunction;

/**
 * Where a command's time goes between its commit and its final receipt, as JDK Flight Recorder events
 * ({@link CommandStepEvent}): recorded only while a recording enables {@value CommandStepEvent#NAME} (the benchmark's
 * B3 breakdown does, docs/BENCHMARKS.md; so can an operator's {@code jcmd JFR.start} with a settings file that
 * enables it). Without such a recording each call is one check that the JIT reduces to a constant. Keeps nothing.
 */
public final class CommandTrace {
    /** The steps of the path from intake to the final receipt, in order. */
    public enum Step {
        STORED_COMMITTED,
        STORED_SENT,
        CLAIMED,
        REQUEST_SENT,
        ANSWERED,
        SETTLED,
        FINAL_SENT
    }

    private CommandTrace() {}

    /** A row committed by intake at {@code committedNanos}, whose {@code stored} receipt was handed out now. */
    public static void stored(long rowId, String commandId, long committedNanos) {
        if (on()) {
            new CommandStepEvent(rowId, commandId, Step.STORED_COMMITTED, committedNanos).commit();
            new CommandStepEvent(rowId, commandId, Step.STORED_SENT, System.nanoTime()).commit();
        }
    }

    /** The rows reached {@code step} now. */
    public static <T> void mark(Step step, Iterable<T> rows, ToLongFunction<T> rowId) {
        if (on()) {
            long now = System.nanoTime();
            for (T r : rows) {
                new CommandStepEvent(rowId.applyAsLong(r), null, step, now).commit();
            }
        }
    }

    /** {@link System#nanoTime()} while the steps are recorded, else 0 (no clock read). */
    public static long now() {
        return on() ? System.nanoTime() : 0;
    }

    private static boolean on() {
        return new CommandStepEvent().isEnabled();
    }
}
