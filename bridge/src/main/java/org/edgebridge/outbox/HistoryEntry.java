package org.edgebridge.outbox;

import java.time.Instant;

/**
 * One thing that happened to a command after it was stored.
 *
 * @param kind {@code attempt}, {@code receipt}, {@code retry_later}, {@code released}, {@code parked},
 *     {@code requeued} or {@code rejected_by_admin}
 */
public record HistoryEntry(Instant at, String kind, String batchId, String status, String code, String detail) {}
