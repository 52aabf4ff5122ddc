package org.edgebridge.intake;

import java.util.Optional;
import org.edgebridge.outbox.CommandRecord;
import org.edgebridge.outbox.IntakeOutbox;
import org.edgebridge.outbox.NewCommand;
import org.edgebridge.receipt.ReceiptSender;

/**
 * Answers a command the outbox already holds (a device's resend) with the latest receipt of that row, or
 * {@code command_id_reused} if its bytes differ, as the intake's writer would have. Called on the broker's
 * interceptor thread (a resend that cannot be queued now) and on the intake's writer thread (a resend in a batch).
 */
final class ResendAnswers {
    private final IntakeOutbox outbox;
    private final ReceiptSender receipts;
    private final StoreReceipts storeReceipts;
    private final IntakeStats stats;

    ResendAnswers(IntakeOutbox outbox, ReceiptSender receipts, StoreReceipts storeReceipts, IntakeStats stats) {
        this.outbox = outbox;
        this.receipts = receipts;
        this.storeReceipts = storeReceipts;
        this.stats = stats;
    }

    /** Answers {@code c} from the outbox if it holds it. @return true if answered */
    boolean answered(NewCommand c) {
        Optional<CommandRecord> known;
        try {
            known = outbox.find(c.clientId(), c.commandId());
        } catch (RuntimeException e) {
            return false;
        }
        if (known.isEmpty()) {
            return false;
        }
        if (!known.get().payloadSha256().equals(c.payloadSha256())) {
            receipts.send(c.clientId(), storeReceipts.idReused(c, known.get()));
            return true;
        }
        stats.replayed.incrementAndGet();
        replay(known.get());
        return true;
    }

    /**
     * Answers a resend with the latest receipt the outbox holds, read again under the device's receipt lock: the
     * forwarder may have committed (and published) the final since the row was read, and a stale {@code stored} must
     * not follow it.
     */
    void replay(CommandRecord seen) {
        receipts.sendInOrder(seen.clientId(), () -> seen.state().isFinal() ? seen : reread(seen), true);
    }

    private CommandRecord reread(CommandRecord seen) {
        try {
            return outbox.find(seen.clientId(), seen.commandId()).orElse(seen);
        } catch (RuntimeException e) {
            return seen; // the outbox cannot be read: what the commit saw is still true or older, never newer
        }
    }
}
