package org.edgebridge.central;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The reference central's inbox: unique on (deviceId, eventId), with the receipt stored with the event, as
 * an idempotent ingest should do it. Order is kept per (edgeId, deviceId) (docs/protocol.md §2.2): each bridge
 * numbers its own commands, so a device that moves to another box behind a balancer starts a new numbering
 * there. Thread-safe (synchronized); in memory, for tests and the demo.
 */
public final class Inbox {
    /** One applied event and the receipt it got. */
    public record Entry(
            String edgeId,
            String deviceId,
            String eventId,
            long sequence,
            String payloadSha256,
            String payloadJson,
            long inboxId,
            Instant appliedAt,
            int deliveries) {}

    /** Central's answer for one event. */
    public record Answer(
            String status,
            @Nullable String code,
            @Nullable String message,
            @Nullable String resultJson) {}

    private final Clock clock;
    private final Map<String, Entry> entries = new LinkedHashMap<>();
    /** The highest sequence each (edge, device) has had settled here, applied or answered duplicate. */
    private final Map<String, Long> lastSequenceByEdgeDevice = new HashMap<>();
    /** Answers given per edge: edgeId, then status, then how many. */
    private final Map<String, Map<String, Long>> answersByEdge = new TreeMap<>();

    private long nextInboxId = 1;
    private long duplicates;
    private long mismatches;
    private long orderingViolations;
    private long sequenceConflicts;
    private long sequenceGaps;
    /** Events that expired, reported by their edge or refused here as late: never applied. */
    private final Set<String> expiredHere = new HashSet<>();

    private long expiryReports;
    private long lateRefused;

    public Inbox(Clock clock) {
        this.clock = clock;
    }

    /** Applies an event once, whichever edge sends it; a resend gets {@code duplicate} with the original result. */
    public synchronized Answer apply(
            String edgeId, String deviceId, String eventId, long sequence, String payloadSha256, String payloadJson) {
        return apply(edgeId, deviceId, eventId, sequence, payloadSha256, payloadJson, null);
    }

    /**
     * {@link #apply} of an event that must not be applied after {@code expiresAt} (null: never expires): one that was
     * not applied before and comes later, or that its edge reported expired, is {@code rejected} / {@code expired},
     * and its sequence counts as settled (docs/protocol.md §1.4).
     */
    public synchronized Answer apply(
            String edgeId,
            String deviceId,
            String eventId,
            long sequence,
            String payloadSha256,
            String payloadJson,
            @Nullable Instant expiresAt) {
        String key = deviceId + "\u0000" + eventId;
        if (!entries.containsKey(key)
                && (expiredHere.contains(key)
                        || (expiresAt != null && clock.instant().isAfter(expiresAt)))) {
            lateRefused++;
            expiredHere.add(key);
            lastSequenceByEdgeDevice.merge(edgeId + "\u0000" + deviceId, sequence, Math::max);
            answersByEdge.computeIfAbsent(edgeId, e -> new TreeMap<>()).merge("rejected", 1L, Long::sum);
            return new Answer(
                    "rejected",
                    "expired",
                    "event " + eventId + " came after its expiry" + (expiresAt == null ? "" : " (" + expiresAt + ")")
                            + "; not applied",
                    null);
        }
        Answer answer = answer(edgeId, deviceId, eventId, sequence, payloadSha256, payloadJson);
        answersByEdge.computeIfAbsent(edgeId, e -> new TreeMap<>()).merge(answer.status(), 1L, Long::sum);
        return answer;
    }

    private Answer answer(
            String edgeId, String deviceId, String eventId, long sequence, String payloadSha256, String payloadJson) {
        String key = deviceId + "\u0000" + eventId;
        String orderKey = edgeId + "\u0000" + deviceId;
        Entry known = entries.get(key);
        if (known != null) {
            if (!known.payloadSha256().equals(payloadSha256)) {
                mismatches++;
                return new Answer(
                        "rejected",
                        "payload_mismatch",
                        "event " + eventId + " was applied before with other payload bytes",
                        null);
            }
            duplicates++;
            if (known.edgeId().equals(edgeId) && known.sequence() != sequence) {
                // the same command under a second sequence of the same edge: that bridge stored it twice
                sequenceConflicts++;
            }
            // settled for this edge too: the edge's next event follows this one (another edge may have applied it)
            lastSequenceByEdgeDevice.merge(orderKey, sequence, Math::max);
            entries.put(
                    key,
                    new Entry(
                            known.edgeId(),
                            known.deviceId(),
                            known.eventId(),
                            known.sequence(),
                            known.payloadSha256(),
                            known.payloadJson(),
                            known.inboxId(),
                            known.appliedAt(),
                            known.deliveries() + 1));
            return new Answer("duplicate", null, null, result(known));
        }
        Long last = lastSequenceByEdgeDevice.get(orderKey);
        if (last != null && sequence <= last) {
            orderingViolations++;
        }
        if (sequence != (last == null ? 0 : last) + 1) {
            // applied while the edge's event before it was not: sent too early, or the one before was rejected
            sequenceGaps++;
        }
        lastSequenceByEdgeDevice.merge(orderKey, sequence, Math::max);
        Entry entry = new Entry(
                edgeId, deviceId, eventId, sequence, payloadSha256, payloadJson, nextInboxId++, clock.instant(), 1);
        entries.put(key, entry);
        return new Answer("accepted", null, null, result(entry));
    }

    private static String result(Entry e) {
        return "{\"inboxId\":" + e.inboxId() + ",\"appliedAt\":\"" + e.appliedAt() + "\"}";
    }

    /**
     * An edge reports that an event expired there before it was sent (docs/protocol.md §2.2): it will never come, its
     * sequence counts as settled, and a copy that comes later anyway is refused as expired. Nothing happens for an
     * event applied already (another edge sent it).
     */
    public synchronized void expired(String edgeId, String deviceId, String eventId, long sequence) {
        String key = deviceId + "\u0000" + eventId;
        if (entries.containsKey(key)) {
            return;
        }
        expiredHere.add(key);
        expiryReports++;
        lastSequenceByEdgeDevice.merge(edgeId + "\u0000" + deviceId, sequence, Math::max);
    }

    public synchronized List<Entry> entries() {
        return new ArrayList<>(entries.values());
    }

    /**
     * The answers given to each edge so far: edgeId, then status ({@code accepted}, {@code duplicate}, …), then how
     * many.
     */
    public synchronized Map<String, Map<String, Long>> answersByEdge() {
        Map<String, Map<String, Long>> copy = new TreeMap<>();
        answersByEdge.forEach((edge, byStatus) -> copy.put(edge, new TreeMap<>(byStatus)));
        return copy;
    }

    public synchronized int size() {
        return entries.size();
    }

    /**
     * Counters: applied events, duplicate deliveries, payload mismatches, sequence regressions per (edge, device),
     * sequence conflicts (an event delivered again by the same edge under another sequence than the one first
     * applied), and sequence gaps (an event applied while the same edge's event of its device with the sequence
     * before it was not settled here).
     */
    public synchronized Map<String, Long> stats() {
        Map<String, Long> stats = new LinkedHashMap<>();
        stats.put("applied", (long) entries.size());
        stats.put("duplicates", duplicates);
        stats.put("payloadMismatches", mismatches);
        stats.put("orderingViolations", orderingViolations);
        stats.put("sequenceConflicts", sequenceConflicts);
        stats.put("sequenceGaps", sequenceGaps);
        stats.put("expiryReports", expiryReports);
        stats.put("refusedAsExpired", lateRefused);
        return stats;
    }
}
