package org.edgebridge.intake;

import org.edgebridge.code.ReceiptCode;
import org.edgebridge.outbox.CommandRecord;
import org.edgebridge.outbox.NewCommand;
import org.edgebridge.outbox.StoreResult;
import org.edgebridge.receipt.Receipt;
import org.edgebridge.receipt.ReceiptSender;

/** The receipt a device gets for what the outbox did with its command, counted in the intake's stats. */
final class StoreReceipts {
    private final IntakeSettings.Room settings;
    private final IntakeStats stats;
    private final OutboxRoom room;

    StoreReceipts(IntakeSettings.Room settings, IntakeStats stats, OutboxRoom room) {
        this.settings = settings;
        this.stats = stats;
        this.room = room;
    }

    /**
     * {@code stored}, {@code retry_later}/{@code outbox_full} or {@code device_outbox_full}, or {@code rejected}/{@code
     * command_id_reused}, {@code expired} or {@code unstorable}.
     */
    Receipt receiptFor(StoreResult result) {
        if (result instanceof StoreResult.Stored stored) {
            stats.stored.incrementAndGet();
            return ReceiptSender.latest(stored.record(), false);
        }
        if (result instanceof StoreResult.Full) {
            stats.retryLater.incrementAndGet();
            NewCommand c = result.command();
            return ReceiptSender.retryLater(
                    c.commandId(),
                    ReceiptCode.OUTBOX_FULL,
                    room.lastBatchWasLowOnDisk()
                            ? "the bridge is low on disk space; send the command again later"
                            : "the bridge's outbox is full; send the command again later",
                    c.payloadSha256(),
                    c.topic(),
                    settings.fullRetryAfter().toMillis());
        }
        if (result instanceof StoreResult.DeviceFull full) {
            stats.retryLater.incrementAndGet();
            NewCommand c = result.command();
            return ReceiptSender.retryLater(
                    c.commandId(),
                    ReceiptCode.DEVICE_OUTBOX_FULL,
                    "this device holds its share of the "
                            + "bridge's outbox (" + full.openCommands() + " open commands, " + full.openBytes()
                            + " bytes; at most "
                            + settings.deviceShare().maxCommands() + " and "
                            + settings.deviceShare().maxBytes()
                            + "); send the "
                            + "command again once earlier ones are final",
                    c.payloadSha256(),
                    c.topic(),
                    settings.fullRetryAfter().toMillis());
        }
        if (result instanceof StoreResult.Expired) {
            NewCommand c = result.command();
            stats.countRejected(ReceiptCode.EXPIRED);
            return ReceiptSender.rejected(
                    c.commandId(),
                    ReceiptCode.EXPIRED,
                    "the command's expiry ("
                            + c.expiresAt().map(Object::toString).orElse("?")
                            + ") had passed when it arrived; it was not stored",
                    c.payloadSha256(),
                    c.topic());
        }
        if (result instanceof StoreResult.Unstorable unstorable) {
            NewCommand c = result.command();
            stats.countRejected(ReceiptCode.UNSTORABLE);
            return ReceiptSender.rejected(
                    c.commandId(),
                    ReceiptCode.UNSTORABLE,
                    "the outbox could not store this command (" + unstorable.error()
                            + "); it was not stored, and the same bytes will fail again",
                    c.payloadSha256(),
                    c.topic());
        }
        StoreResult.IdReused reused = (StoreResult.IdReused) result;
        return idReused(reused.command(), reused.original());
    }

    /** The command id is known with other payload bytes: the original is kept. */
    Receipt idReused(NewCommand c, CommandRecord original) {
        stats.countRejected(ReceiptCode.COMMAND_ID_REUSED);
        return ReceiptSender.rejected(
                c.commandId(),
                ReceiptCode.COMMAND_ID_REUSED,
                "commandId was first stored with other payload bytes (sha256 " + original.payloadSha256()
                        + "); the original is kept",
                c.payloadSha256(),
                c.topic());
    }
}
