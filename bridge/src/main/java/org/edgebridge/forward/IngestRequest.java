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

/**
 * The body of one request to central (docs/protocol.md §2.1). Each event's {@code payload} is the device's JSON
 * written verbatim, byte for byte, not re-serialized.
 */
final class IngestRequest {
    private static final JsonFactory JSON = new JsonFactory();

    private IngestRequest() {}

    static byte[] body(String edgeId, String batchId, List<ClaimedEvent> events) {
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
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("writing a request body in memory failed", e);
        }
        return out.toByteArray();
    }
}
