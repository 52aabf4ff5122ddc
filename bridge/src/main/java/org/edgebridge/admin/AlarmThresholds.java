package org.edgebridge.admin;

import java.time.Duration;

/** When the status page raises an alarm that no setting governs. */
final class AlarmThresholds {
    /** Failed requests in a row after which central counts as unreachable ({@code central_unreachable}). */
    static final int CENTRAL_FAILURES_IN_A_ROW = 3;
    /** How long {@code central_missing_receipts} stays up after the last receipt central left out. */
    static final Duration MISSING_RECEIPTS_SHOWN_FOR = Duration.ofMinutes(10);

    private AlarmThresholds() {}
}
