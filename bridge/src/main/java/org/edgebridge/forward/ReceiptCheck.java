package org.edgebridge.forward;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.edgebridge.outbox.ClaimedEvent;
import org.jspecify.annotations.Nullable;

/**
 * Checks central's receipts before the bridge believes them (docs/protocol.md §2.3). A sent event gets its receipt
 * believed only if there is one, with a known status, with {@code result}, {@code message} and {@code code} within
 * {@link ReceiptCaps}, and no other receipt for the same event that says something else. Every other case is a
 * {@link Problem}: the event is then treated exactly as one without a receipt, and a receipt for an event that was not
 * in the request is counted and otherwise ignored. Pure.
 */
final class ReceiptCheck {
    /** How central broke the receipt contract. */
    enum Violation {
        /** no receipt for a sent event */
        MISSING,
        /** a status other than accepted, duplicate, rejected, retry_later */
        UNKNOWN_STATUS,
        /** result, message or code over its cap */
        OVERSIZED,
        /** two receipts for one event that differ */
        CONFLICTING,
        /** a receipt for an event that was not in the request */
        NOT_SENT
    }

    /** One broken rule; {@code eventRowId} is the outbox row of the sent event, null for {@link Violation#NOT_SENT}. */
    record Problem(Violation kind, @Nullable Long eventRowId, String detail) {}

    /** The receipts believed, by outbox row id, and the problems found. */
    record Checked(Map<Long, JsonNode> believed, List<Problem> problems) {}

    private static final Set<String> STATUSES = Set.of("accepted", "duplicate", "rejected", "retry_later");
    private static final int MAX_ID_IN_DETAIL = 64;
    /** Receipts for events not sent that get a detail of their own; the others share {@link #MORE_NOT_SENT}. */
    static final int MAX_NOT_SENT_DETAILS = 20;

    private static final Problem MORE_NOT_SENT =
            new Problem(Violation.NOT_SENT, null, "one of many receipts for events that were not in the request");

    private ReceiptCheck() {}

    static Checked check(JsonNode receipts, List<ClaimedEvent> events, ReceiptCaps caps) {
        Map<String, ClaimedEvent> sent = new HashMap<>();
        events.forEach(e -> sent.put(key(e.clientId(), e.commandId()), e));
        Map<Long, JsonNode> first = new HashMap<>();
        Map<Long, Problem> problemOf = new HashMap<>();
        List<Problem> problems = new ArrayList<>();
        int notSent = 0;
        for (JsonNode r : receipts) {
            String device = r.path("deviceId").asText();
            String eventId = r.path("eventId").asText();
            ClaimedEvent e = sent.get(key(device, eventId));
            if (e == null) {
                // each counted; past the first few one shared problem, so that a reply of millions of tiny elements
                // ({"receipts":[0,0,…]}, within ingest.maxReplyBytes) costs a reference each, not a string each
                problems.add(
                        ++notSent <= MAX_NOT_SENT_DETAILS
                                ? new Problem(
                                        Violation.NOT_SENT,
                                        null,
                                        "a receipt for " + excerpt(device) + "/" + excerpt(eventId)
                                                + ", which was not in the request")
                                : MORE_NOT_SENT);
                continue;
            }
            JsonNode before = first.putIfAbsent(e.id(), r);
            if (before != null && !before.equals(r) && !problemOf.containsKey(e.id())) {
                problemOf.put(
                        e.id(),
                        new Problem(
                                Violation.CONFLICTING,
                                e.id(),
                                "two receipts that differ ("
                                        + excerpt(before.path("status").asText()) + " and "
                                        + excerpt(r.path("status").asText()) + ")"));
            }
        }
        Map<Long, JsonNode> believed = new HashMap<>();
        for (ClaimedEvent e : events) {
            JsonNode r = first.get(e.id());
            Problem p = problemOf.get(e.id());
            if (p == null) {
                p = r == null ? new Problem(Violation.MISSING, e.id(), "no receipt") : broken(e.id(), r, caps);
            }
            if (p == null) {
                believed.put(e.id(), r);
            } else {
                problems.add(p);
            }
        }
        return new Checked(believed, problems);
    }

    private static @Nullable Problem broken(long id, JsonNode r, ReceiptCaps caps) {
        String status = r.path("status").asText("");
        if (!STATUSES.contains(status)) {
            return new Problem(Violation.UNKNOWN_STATUS, id, "an unknown status '" + excerpt(status) + "'");
        }
        String over = over("result", json(r.get("result")), caps.maxResultBytes(), "ingest.maxReceiptResultBytes");
        if (over == null) {
            over = over("message", text(r.get("message")), caps.maxMessageBytes(), "ingest.maxReceiptMessageBytes");
        }
        if (over == null) {
            over = over("code", text(r.get("code")), caps.maxCodeBytes(), "ingest.maxReceiptCodeBytes");
        }
        return over == null ? null : new Problem(Violation.OVERSIZED, id, over);
    }

    private static @Nullable String over(String field, @Nullable String value, int cap, String key) {
        if (value == null) {
            return null;
        }
        int bytes = value.getBytes(StandardCharsets.UTF_8).length;
        return bytes <= cap ? null : "a " + field + " of " + bytes + " bytes, over " + key + " (" + cap + ")";
    }

    private static @Nullable String json(@Nullable JsonNode n) {
        return n == null || n.isNull() ? null : n.toString();
    }

    /** A text field as it would be stored; a field that is no string is measured as its JSON. */
    private static @Nullable String text(@Nullable JsonNode n) {
        return n == null || n.isNull() ? null : n.isTextual() ? n.asText() : n.toString();
    }

    static String key(String deviceId, String eventId) {
        return deviceId + "\u0000" + eventId;
    }

    /** Central's text in a problem's detail: at most 64 characters of it. */
    static String excerpt(String s) {
        return s.length() <= MAX_ID_IN_DETAIL ? s : s.substring(0, MAX_ID_IN_DETAIL) + "…";
    }
}
