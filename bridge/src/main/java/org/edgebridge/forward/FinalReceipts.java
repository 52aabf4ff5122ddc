package org.edgebridge.forward;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.edgebridge.outbox.CommandRecord;
import org.edgebridge.outbox.ForwarderOutbox;
import org.edgebridge.receipt.ReceiptSender;
import org.edgebridge.trace.CommandTrace;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes final receipts after their commit, marks them published, and now and then publishes again those that
 * were committed but never handed to the broker (a crash in between). Thread-safe.
 */
final class FinalReceipts {
    private static final Logger LOG = LoggerFactory.getLogger(FinalReceipts.class);
    private static final Duration REPUBLISH_EVERY = Duration.ofSeconds(10);

    private final ForwarderOutbox outbox;
    private final ReceiptSender receipts;
    private final AtomicLong published = new AtomicLong();
    private Instant lastRepublish = Instant.EPOCH; // guarded by this

    FinalReceipts(ForwarderOutbox outbox, ReceiptSender receipts) {
        this.outbox = outbox;
        this.receipts = receipts;
    }

    /** @param again true when these receipts may have been published before (a copy: replayed) */
    void publish(List<CommandRecord> records, boolean again) {
        List<Long> ids = receipts.sendFinals(records, again);
        if (!again) {
            published.addAndGet(records.size());
            CommandTrace.mark(CommandTrace.Step.FINAL_SENT, records, CommandRecord::id);
        }
        try {
            outbox.markPublished(ids);
        } catch (RuntimeException e) {
            LOG.warn(
                    "{} final receipts were published but not marked so ({}); they are published again later",
                    ids.size(),
                    e.getMessage());
        }
    }

    /** Finals committed since start (each published at least once). */
    long count() {
        return published.get();
    }

    synchronized void republishIfDue(Instant now) {
        if (Duration.between(lastRepublish, now).compareTo(REPUBLISH_EVERY) < 0) {
            return;
        }
        lastRepublish = now;
        List<CommandRecord> unpublished = outbox.unpublishedFinals(1000);
        if (!unpublished.isEmpty()) {
            LOG.info(
                    "publishing {} final receipts that were committed but not yet handed to the broker",
                    unpublished.size());
            publish(unpublished, true);
        }
    }
}
