package org.edgebridge.central;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The reference central's inbox: unique on (deviceId, eventId), with the receipt stored with the event, as
 * an idempotent ingest should do it. Thread-safe (synchronized); in memory, for tests and the demo.
 */
public final class Inbox {
    /** One applied event and the receipt it got. */
    public record Entry(String deviceId, String eventId, long sequence, String payloadSha256, String payloadJson,
            long inboxId, Instant appliedAt, int deliveries) {}

    /** Central's answer for one event. */
    public record Answer(String status, String code, String message, String resultJson) {}

    private final Clock clock;
    private final Map<String, Entry> entries = new LinkedHashMap<>();
    private final Map<String, Long> lastSequenceByDevice = new HashMap<>();
    private long nextInboxId = 1;
    private long duplicates;
    private long mismatches;
    private long orderingViolations;
    private long sequenceConflicts;
    private long sequenceGaps;

    public Inbox(Clock clock) {
        this.clock = clock;
    }

    /** Applies an event once; a resend gets {@code duplicate} with the original result. */
    public synchronized Answer apply(String deviceId, String eventId, long sequence, String payloadSha256, String payloadJson) {
        String key = deviceId + "\u0000" + eventId;
        Entry known = entries.get(key);
        if (known != null) {
            if (!known.payloadSha256().equals(payloadSha256)) {
                mismatches++;
                return new Answer("rejected", "payload_mismatch",
                        "event " + eventId + " was applied before with other payload bytes", null);
            }
            duplicates++;
            if (known.sequence() != sequence) {
                // the same command under a second sequence: the bridge stored it twice
                sequenceConflicts++;
            }
            entries.put(key, new Entry(known.deviceId(), known.eventId(), known.sequence(), known.payloadSha256(),
                    known.payloadJson(), known.inboxId(), known.appliedAt(), known.deliveries() + 1));
            return new Answer("duplicate", null, null, result(known));
        }
        Long last = lastSequenceByDevice.get(deviceId);
        if (last != null && sequence <= last) {
            orderingViolations++;
        }
        if (sequence != (last == null ? 0 : last) + 1) {
            // applied while the event before it was not: sent too early, or the one before was rejected
            sequenceGaps++;
        }
        lastSequenceByDevice.merge(deviceId, sequence, Math::max);
        Entry entry = new Entry(deviceId, eventId, sequence, payloadSha256, payloadJson, nextInboxId++, clock.instant(), 1);
        entries.put(key, entry);
        return new Answer("accepted", null, null, result(entry));
    }

    private static String result(Entry e) {
        return "{\"inboxId\":" + e.inboxId() + ",\"appliedAt\":\"" + e.appliedAt() + "\"}";
    }

    public synchronized List<Entry> entries() {
        return new ArrayList<>(entries.values());
    }

    public synchronized int size() {
        return entries.size();
    }

    /**
     * Counters: applied events, duplicate deliveries, payload mismatches, sequence regressions per device, and
     * sequence conflicts (an event delivered again under another sequence than the one first applied), and
     * sequence gaps (an event applied while its device's event with the sequence before it was not).
     */
    public synchronized Map<String, Long> stats() {
        Map<String, Long> stats = new LinkedHashMap<>();
        stats.put("applied", (long) entries.size());
        stats.put("duplicates", duplicates);
        stats.put("payloadMismatches", mismatches);
        stats.put("orderingViolations", orderingViolations);
        stats.put("sequenceConflicts", sequenceConflicts);
        stats.put("sequenceGaps", sequenceGaps);
        return stats;
    }
}
