package org.edgebridge.forward;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.format.DateTimeFormatter;
import java.util.List;
import org.edgebridge.outbox.ClaimedEvent;
import org.edgebridge.outbox.Expiries;

/**
 * The body of one request to central (docs/protocol.md §2.1). Each event's {@code payload} is the device's JSON
 * written verbatim, byte for byte, not re-serialized.
 */
final class IngestRequest {
    private static final JsonFactory JSON = new JsonFactory();

    /** What an event's JSON holds besides its variable fields: the names, quotes, braces, the comma after it. */
    private static final int EVENT_FRAME_BYTES = ("{\"eventId\":\"\",\"deviceId\":\"\",\"sequence\":,\"type\":\"\","
                            + "\"topic\":\"\","
                            + "\"payload\":,\"payloadSha256\":\"\",\"receivedAt\":\"\",\"attempt\":},")
                    .length()
            + ",\"expiresAt\":\"\"".length()
            + "2026-11-29T06:33:00.123456789Z".length(); // counted whether it has one or not
    /** The widest sequence (a long), SHA-256 in hex, receivedAt (ISO_INSTANT with nanoseconds), attempt (an int). */
    private static final int EVENT_NUMBERS_BYTES = 20 + 64 + "2026-11-29T06:33:00.123456789Z".length() + 11;
    /** The request around its events, but for the edge id: {@code {"edgeId":"","batchId":"<uuid>","events":[]}}. */
    private static final int ENVELOPE_BYTES = ("{\"edgeId\":\"\",\"batchId\":\"\",\"events\":[]}").length() + 36;

    private IngestRequest() {}

    /**
     * The most bytes one event can take in {@link #body}: {@code forwarder.maxBytes} bounds the serialized request with
     * it ({@link #eventBudget}). Strings are counted as Jackson writes them: UTF-8, with {@code "} and {@code \}
     * escaped in 2 bytes and control characters in at most 6.
     */
    static long eventBytes(String clientId, String commandId, String type, String topic, int payloadBytes) {
        return EVENT_FRAME_BYTES
                + EVENT_NUMBERS_BYTES
                + stringBytes(clientId)
                + stringBytes(commandId)
                + stringBytes(type)
                + stringBytes(topic)
                + payloadBytes;
    }

    /** The bytes of {@code forwarder.maxBytes} left for events once the request's envelope is counted. */
    static int eventBudget(ForwarderSettings settings) {
        return (int) Math.max(
                0,
                settings.batching().maxBytes().intBytes()
                        - ENVELOPE_BYTES
                        - stringBytes(settings.central().edgeId()));
    }

    /** The most bytes Jackson writes for the characters of a JSON string (without its quotes). */
    static long stringBytes(String s) {
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            n += c < 0x20 ? 6 : c == '"' || c == '\\' ? 2 : c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
        }
        return n;
    }

    static byte[] body(String edgeId, String batchId, List<ClaimedEvent> events) {
        return body(edgeId, batchId, events, List.of());
    }

    /** The body, with the commands that expired here and central is told of ({@code expired}, only when there are). */
    static byte[] body(String edgeId, String batchId, List<ClaimedEvent> events, List<Expiries.Expired> expired) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(events.size() * 512);
        try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
            g.writeStartObject();
            g.writeStringField("edgeId", edgeId);
            g.writeStringField("batchId", batchId);
            g.writeArrayFieldStart("events");
            for (ClaimedEvent e : events) {
                g.writeStartObject();
                g.writeStringField("eventId", e.commandId());
                g.writeStringField("deviceId", e.clientId());
                g.writeNumberField("sequence", e.sequence());
                g.writeStringField("type", e.type());
                g.writeStringField("topic", e.topic());
                g.writeFieldName("payload");
                g.writeRawValue(new String(e.payload(), StandardCharsets.UTF_8));
                g.writeStringField("payloadSha256", e.payloadSha256());
                g.writeStringField("receivedAt", DateTimeFormatter.ISO_INSTANT.format(e.receivedAt()));
                g.writeNumberField("attempt", e.attempt());
                if (e.expiresAt().isPresent()) {
                    g.writeStringField(
                            "expiresAt",
                            DateTimeFormatter.ISO_INSTANT.format(e.expiresAt().get()));
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            if (!expired.isEmpty()) {
                g.writeArrayFieldStart("expired");
                for (Expiries.Expired x : expired) {
                    g.writeStartObject();
                    g.writeStringField("eventId", x.commandId());
                    g.writeStringField("deviceId", x.clientId());
                    g.writeNumberField("sequence", x.sequence());
                    g.writeStringField("expiresAt", DateTimeFormatter.ISO_INSTANT.format(x.expiresAt()));
                    g.writeEndObject();
                }
                g.writeEndArray();
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("writing a request body in memory failed", e);
        }
        return out.toByteArray();
    }
}
