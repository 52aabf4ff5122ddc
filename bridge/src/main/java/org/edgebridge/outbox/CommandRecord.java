package org.edgebridge.outbox;

import java.time.Instant;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A stored command as the outbox holds it, without its payload bytes.
 *
 * @param id the outbox row id: increases in the order commands were stored
 * @param resultJson central's result for a final command, as JSON text, or null
 */
public record CommandRecord(
        long id,
        String clientId,
        String commandId,
        long sequence,
        String topic,
        String type,
        String payloadSha256,
        Instant receivedAt,
        CommandState state,
        int attempts,
        int retryLaters,
        Instant notBefore,
        @Nullable String lastError,
        @Nullable String code,
        @Nullable String message,
        @Nullable String resultJson,
        Optional<Instant> finalAt) {}
