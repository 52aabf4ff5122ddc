package org.edgebridge.central;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;

/** Request bodies of {@code POST /ingest} for the reference central's tests: one event each. */
final class IngestBodies {
    private IngestBodies() {}

    static String batch(String deviceId, String eventId) throws Exception {
        String payload = "{\"commandId\":\"" + eventId + "\",\"action\":\"ARRIVE\"}";
        String sha = HexFormat.of()
                .formatHex(MessageDigest.getInstance("SHA-256").digest(payload.getBytes(StandardCharsets.UTF_8)));
        return "{\"edgeId\":\"edge-gz\",\"batchId\":\"b-" + eventId + "\",\"events\":[{\"eventId\":\"" + eventId
                + "\",\"deviceId\":\"" + deviceId
                + "\",\"sequence\":1,\"type\":\"workorder/arrive\",\"topic\":\"devices/" + deviceId
                + "/commands/workorder/arrive\",\"payload\":" + payload + ",\"payloadSha256\":\"" + sha
                + "\",\"receivedAt\":\"2026-12-02T06:00:00Z\",\"attempt\":1}]}";
    }
}
