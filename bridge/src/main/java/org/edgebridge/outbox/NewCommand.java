package org.edgebridge.outbox;

import java.time.Instant;

/** A validated command about to be stored: identity (clientId, commandId), the device's bytes and their hash. */
public record NewCommand(
        String clientId,
        String commandId,
        String topic,
        String type,
        byte[] payload,
        String payloadSha256,
        Instant receivedAt) {}
