package org.edgebridge.outbox;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * What a command's row keeps of its life besides its {@link CommandRecord}, for its timeline (docs/desk.md, "A
 * command's timeline"). Each is null when it has not happened, or happened before schema version 8 recorded it.
 *
 * @param storedAt the insert, in the outbox writer's transaction that committed it
 * @param claimedAt the claim of the request it is in flight in now (null unless in flight)
 * @param lastRequestId the request that carried it last (its {@code batchId})
 * @param httpStatus central's HTTP status for the request that made it final (null: it was not made final by one)
 * @param tookMs how long that request took
 * @param receiptPublishedAt when its final receipt was handed to the broker
 * @param receiptAckedAt the device's PUBACK of its final receipt
 * @param expiresAt when it stops being worth applying (docs/protocol.md §1.4)
 */
public record CommandLife(
        @Nullable Instant storedAt,
        @Nullable Instant claimedAt,
        @Nullable String lastRequestId,
        @Nullable Integer httpStatus,
        @Nullable Long tookMs,
        @Nullable Instant receiptPublishedAt,
        @Nullable Instant receiptAckedAt,
        @Nullable Instant expiresAt) {}
