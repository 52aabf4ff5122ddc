package org.edgebridge.trace;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToLongFunction;

/**
 * Where a command's time goes between its commit and its final receipt: off unless the JVM runs with
 * {@code -Dedgebridge.trace=true} (the benchmark's B3 breakdown, docs/BENCHMARKS.md). When on, each step records
 * {@link System#nanoTime()} per outbox row; when off, each call is a read of a constant. Thread-safe.
 */
public final class CommandTrace {
    /** The steps of the path from intake to the final receipt, in order. */
    public enum Step { STORED_COMMITTED, STORED_SENT, CLAIMED, REQUEST_SENT, ANSWERED, SETTLED, FINAL_SENT }

    public static final boolean ON = Boolean.getBoolean("edgebridge.trace");

    private static final Map<Long, Row> ROWS = new ConcurrentHashMap<>();

    /** One row's times, 0 where a step was not seen (the first time counts). */
    public record Row(long id, String commandId, long[] nanos) {}

    private CommandTrace() {}

    /** A row committed by intake at {@code committedNanos}, whose {@code stored} receipt was handed out now. */
    public static void stored(long rowId, String commandId, long committedNanos) {
        if (ON) {
            Row row = new Row(rowId, commandId, new long[Step.values().length]);
            row.nanos()[Step.STORED_COMMITTED.ordinal()] = committedNanos;
            row.nanos()[Step.STORED_SENT.ordinal()] = System.nanoTime();
            ROWS.put(rowId, row);
        }
    }

    /** The rows reached {@code step} now. */
    public static <T> void mark(Step step, Iterable<T> rows, ToLongFunction<T> rowId) {
        if (ON) {
            long now = System.nanoTime();
            for (T r : rows) {
                Row row = ROWS.get(rowId.applyAsLong(r));
                if (row != null && row.nanos()[step.ordinal()] == 0) {
                    row.nanos()[step.ordinal()] = now;
                }
            }
        }
    }

    /** {@link System#nanoTime()} when on, else 0 (no clock read). */
    public static long now() {
        return ON ? System.nanoTime() : 0;
    }

    /** The rows seen so far; their times may still be filling in. */
    public static List<Row> rows() {
        return new ArrayList<>(ROWS.values());
    }

    public static void clear() {
        ROWS.clear();
    }
}
