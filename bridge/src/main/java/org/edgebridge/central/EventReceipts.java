package org.edgebridge.central;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HexFormat;
import org.jspecify.annotations.Nullable;

/**
 * The receipt of one event of a request (docs/protocol.md §2.1): checks the event's fields and its payload's SHA-256
 * against the bytes as sent, applies the per-event faults, and otherwise asks the {@link Inbox}. Thread-safe (the
 * inbox is synchronized).
 */
final class EventReceipts {
    private final ObjectMapper json;
    private final Inbox inbox;

    EventReceipts(ObjectMapper json, Inbox inbox) {
        this.json = json;
        this.inbox = inbox;
    }

    /**
     * @param edgeId the bridge that sent it: order is kept per (edgeId, deviceId)
     * @param rawPayload the event's payload bytes as sent, or null if they could not be found
     */
    ObjectNode receipt(String edgeId, JsonNode event, byte @Nullable [] rawPayload, Faults f) throws IOException {
        ObjectNode r = json.createObjectNode();
        String eventId = event.path("eventId").asText(null);
        String deviceId = event.path("deviceId").asText(null);
        r.put("eventId", eventId);
        r.put("deviceId", deviceId);
        JsonNode payload = event.get("payload");
        String sha = event.path("payloadSha256").asText(null);
        if (eventId == null
                || deviceId == null
                || payload == null
                || !payload.isObject()
                || sha == null
                || !event.path("sequence").canConvertToLong()) {
            return answer(
                    r,
                    new Inbox.Answer(
                            "rejected",
                            "invalid_event",
                            "event needs eventId, deviceId, sequence, payload (object) and payloadSha256",
                            null),
                    null);
        }
        if (rawPayload == null || !sha.equals(sha256(rawPayload))) {
            return answer(
                    r,
                    new Inbox.Answer(
                            "rejected",
                            "payload_sha256_mismatch",
                            "payloadSha256 is not the SHA-256 of the payload bytes as sent",
                            null),
                    null);
        }
        if (f.mode().equals("retry_later")) {
            return answer(
                    r,
                    new Inbox.Answer("retry_later", "sim_busy", "injected fault: retry later", null),
                    f.retryAfterMs());
        }
        if (f.mode().equals("reject")) {
            return answer(r, new Inbox.Answer("rejected", "sim_rejected", "injected fault: rejected", null), null);
        }
        Instant expiresAt;
        try {
            expiresAt = event.path("expiresAt").isTextual()
                    ? Instant.parse(event.get("expiresAt").asText())
                    : null;
        } catch (DateTimeParseException e) {
            return answer(
                    r,
                    new Inbox.Answer("rejected", "invalid_event", "expiresAt is not an ISO 8601 instant", null),
                    null);
        }
        Inbox.Answer a = inbox.apply(
                edgeId,
                deviceId,
                eventId,
                event.get("sequence").asLong(),
                sha,
                new String(rawPayload, StandardCharsets.UTF_8),
                expiresAt);
        return answer(r, a, null);
    }

    private ObjectNode answer(ObjectNode r, Inbox.Answer a, @Nullable Long retryAfterMs) throws IOException {
        r.put("status", a.status());
        r.put("code", a.code());
        r.put("message", a.message());
        r.set("result", a.resultJson() == null ? null : json.readTree(a.resultJson()));
        if (retryAfterMs == null) {
            r.putNull("retryAfterMs");
        } else {
            r.put("retryAfterMs", retryAfterMs);
        }
        return r;
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
