package org.edgebridge.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingStream;
import org.edgebridge.trace.CommandStepEvent;
import org.edgebridge.trace.CommandTrace.Step;

/**
 * The bridge's {@link CommandStepEvent}s, recorded in this JVM (the bridge runs in it for the trace) with a JDK
 * Flight Recorder stream, gathered per outbox row. Owns the stream.
 */
final class StepRecording implements AutoCloseable {
    /** One row's times ({@link System#nanoTime()}), 0 where a step was not seen (the first time counts). */
    record Row(long id, String commandId, long[] nanos) {}

    private final RecordingStream stream = new RecordingStream();
    private final Map<Long, long[]> nanos = new ConcurrentHashMap<>();
    private final Map<Long, String> commandIds = new ConcurrentHashMap<>();
    /** Rows that reached their final step since the last {@link #clear}. */
    private int finals;

    StepRecording() {
        stream.enable(CommandStepEvent.NAME);
        stream.onEvent(CommandStepEvent.NAME, this::seen);
        stream.startAsync();
    }

    private void seen(RecordedEvent e) {
        long row = e.getLong("rowId");
        String commandId = e.getString("commandId");
        if (commandId != null) {
            commandIds.put(row, commandId);
        }
        long[] times = nanos.computeIfAbsent(row, r -> new long[Step.values().length]);
        int step = Step.valueOf(e.getString("step")).ordinal();
        boolean finished;
        synchronized (times) {
            finished = times[step] == 0 && step == Step.FINAL_SENT.ordinal();
            if (times[step] == 0) {
                times[step] = e.getLong("nanoTime");
            }
        }
        if (finished) {
            synchronized (this) {
                finals++;
                notifyAll();
            }
        }
    }

    synchronized void clear() {
        nanos.clear();
        commandIds.clear();
        finals = 0;
    }

    /**
     * The rows seen, once {@code expected} rows reached their last step or {@code atMost} passed: a stream hands
     * events over about once a second.
     */
    List<Row> rows(int expected, Duration atMost) throws InterruptedException {
        long deadline = System.nanoTime() + atMost.toNanos();
        synchronized (this) {
            for (long left = atMost.toMillis();
                    finals < expected && left > 0;
                    left = (deadline - System.nanoTime()) / 1_000_000) {
                wait(left);
            }
        }
        List<Row> rows = new ArrayList<>();
        nanos.forEach((id, times) -> {
            String commandId = commandIds.get(id);
            if (commandId != null) {
                synchronized (times) {
                    rows.add(new Row(id, commandId, times.clone()));
                }
            }
        });
        return rows;
    }

    @Override
    public void close() {
        stream.close();
    }
}
