package org.edgebridge.outbox;

import java.time.Instant;
import java.util.Optional;

/**
 * A validated command about to be stored: identity (clientId, commandId), the device's bytes and their hash.
 *
 * @param expiresAt when it stops being worth applying (docs/protocol.md §1.4); empty: never
 */
public record NewCommand(
        String clientId,
        String commandId,
        String topic,
        String type,
        byte[] payload,
        String payloadSha256,
        Instant receivedAt,
        Optional<Instant> expiresAt) {

    /** A command that never expires. */
    public NewCommand(
            String clientId,
            String commandId,
            String topic,
            String type,
            byte[] payload,
            String payloadSha256,
            Instant receivedAt) {
        this(clientId, commandId, topic, type, payload, payloadSha256, receivedAt, Optional.empty());
    }
}
