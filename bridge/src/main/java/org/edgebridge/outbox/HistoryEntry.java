package org.edgebridge.outbox;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * One thing that happened to a command after it was stored, or the same thing again and again, folded into one line.
 *
 * @param at the last time it happened
 * @param kind {@code attempt}, {@code receipt}, {@code retry_later}, {@code released}, {@code failed_alone},
 *     {@code parked}, {@code parked_by_admin}, {@code requeued} or {@code rejected_by_admin}
 * @param batchId, detail those of the last time
 * @param times how many times it happened (same kind, status and code)
 * @param firstAt the first time
 * @param httpStatus on a line that ends an attempt without a final ({@code retry_later}, {@code failed_alone},
 *     {@code released}, {@code parked}): central's HTTP status the last time, 0 for none (no connection, a timeout);
 *     null on other lines and on lines from before schema version 8
 * @param tookMs on such a line: how long that request took (null: not known)
 */
public record HistoryEntry(
        Instant at,
        String kind,
        @Nullable String batchId,
        @Nullable String status,
        @Nullable String code,
        @Nullable String detail,
        int times,
        Instant firstAt,
        @Nullable Integer httpStatus,
        @Nullable Long tookMs) {}
