package org.edgebridge.outbox;

import java.time.Instant;

/** A command claimed for one request to central: everything an event of docs/protocol.md §2.1 needs. */
public record ClaimedEvent(
        long id,
        String clientId,
        String commandId,
        long sequence,
        String topic,
        String type,
        byte[] payload,
        String payloadSha256,
        Instant receivedAt,
        int attempt) {}
