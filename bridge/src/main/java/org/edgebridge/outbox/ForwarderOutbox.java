package org.edgebridge.outbox;

import java.util.List;

/** What the forwarder sees of the {@link Outbox}: it claims, settles and releases, and publishes finals. */
public interface ForwarderOutbox {
    /**
     * A claim as {@link Outbox#claim} makes it, made by a settle in the same transaction ({@link
     * Outbox#settleAndClaim}).
     */
    record NextClaim(int maxEvents, int maxBytes, WireSize size, long maxRowId, String batchId) {}

    /**
     * @param finals commands that became final, with their receipts
     * @param parked how many were parked
     * @param claimed the events of the next claim made in the same transaction (empty when none was asked for)
     */
    record SettleResult(List<CommandRecord> finals, int parked, List<ClaimedEvent> claimed) {}

    /** {@link Outbox#claim}. */
    List<ClaimedEvent> claim(int maxEvents, int maxBytes, WireSize size, long maxRowId, String batchId);

    /** {@link Outbox#settle(SentRequest, List, int)}. */
    SettleResult settle(SentRequest request, List<Settlement> settlements, int maxAttempts);

    /** {@link Outbox#settleAndClaim}. */
    SettleResult settleAndClaim(SentRequest request, List<Settlement> settlements, int maxAttempts, NextClaim next);

    /** {@link Outbox#releaseClaim}. */
    int releaseClaim(String claimId, String reason);

    /** {@link Outbox#releaseUnsentClaim}. */
    int releaseUnsentClaim(String claimId, String reason);

    /** {@link Outbox#makePendingDue}. */
    int makePendingDue();

    /** {@link Outbox#expiries}. */
    Expiries expiries();

    /** {@link Outbox#markPublished}. */
    void markPublished(List<Long> ids);

    /** {@link Outbox#unpublishedFinals}. */
    List<CommandRecord> unpublishedFinals(int limit);
}
