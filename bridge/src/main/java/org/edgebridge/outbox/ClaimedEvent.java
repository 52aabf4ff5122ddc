package org.edgebridge.outbox;

import java.time.Instant;
import java.util.Optional;

/**
 * A command claimed for one request to central: everything an event of docs/protocol.md §2.1 needs.
 *
 * @param centralFailures how many times central failed on this event alone or left out its receipt, before this
 *     claim ({@code commands.central_failures}): {@code forwarder.maxServerErrors} of them park it
 */
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
        int attempt,
        int centralFailures,
        Optional<Instant> expiresAt) {}
