package org.edgebridge.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.edgebridge.trace.CommandTrace.Step;

/**
 * B3's breakdown of publish → final: the bench's own times (publish, receipts at the device) joined by command id
 * with the bridge's step events ({@link StepRecording}: same JVM, same {@link System#nanoTime()}), as p50/p99 per
 * segment.
 */
final class LatencyBreakdown {
    /** A segment from one time to the next; a time is a trace step, or the bench's publish or a receipt's arrival. */
    private record Segment(String name, String from, String to) {}

    private static final List<Segment> SEGMENTS = List.of(
            new Segment("publish_to_commit", "publish", Step.STORED_COMMITTED.name()),
            new Segment("commit_to_stored_sent", Step.STORED_COMMITTED.name(), Step.STORED_SENT.name()),
            new Segment("stored_sent_to_device", Step.STORED_SENT.name(), "stored_at_device"),
            new Segment("commit_to_claim", Step.STORED_COMMITTED.name(), Step.CLAIMED.name()),
            new Segment("claim_to_request", Step.CLAIMED.name(), Step.REQUEST_SENT.name()),
            new Segment("request_to_answer", Step.REQUEST_SENT.name(), Step.ANSWERED.name()),
            new Segment("answer_to_settle_commit", Step.ANSWERED.name(), Step.SETTLED.name()),
            new Segment("settle_to_final_sent", Step.SETTLED.name(), Step.FINAL_SENT.name()),
            new Segment("final_sent_to_device", Step.FINAL_SENT.name(), "final_at_device"),
            new Segment("publish_to_final", "publish", "final_at_device"));

    private LatencyBreakdown() {}

    static Map<String, Object> of(
            List<StepRecording.Row> rows,
            Map<String, Long> sentAt,
            Map<String, Long> storedAt,
            Map<String, Long> finalAt) {
        Map<String, List<Double>> millis = new LinkedHashMap<>();
        SEGMENTS.forEach(s -> millis.put(s.name(), new ArrayList<>()));
        List<StepRecording.Row> measured =
                rows.stream().filter(r -> sentAt.containsKey(r.commandId())).toList();
        for (StepRecording.Row row : measured) {
            Map<String, Long> times = new LinkedHashMap<>();
            put(times, "publish", sentAt.get(row.commandId()));
            for (Step step : Step.values()) {
                put(times, step.name(), row.nanos()[step.ordinal()]);
            }
            put(times, "stored_at_device", storedAt.get(row.commandId()));
            put(times, "final_at_device", finalAt.get(row.commandId()));
            for (Segment s : SEGMENTS) {
                Long from = times.get(s.from());
                Long to = times.get(s.to());
                if (from != null && to != null) {
                    millis.get(s.name()).add((to - from) / 1e6);
                }
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("b3_trace_rows", measured.size());
        millis.forEach((name, values) -> {
            out.put("b3_trace_" + name + "_p50_ms", Bench.percentile(values, 50));
            out.put("b3_trace_" + name + "_p99_ms", Bench.percentile(values, 99));
        });
        return out;
    }

    private static void put(Map<String, Long> times, String name, Long nanos) {
        if (nanos != null && nanos != 0) {
            times.put(name, nanos);
        }
    }
}
