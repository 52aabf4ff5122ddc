package org.edgebridge.admin;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.edgebridge.outbox.CommandLife;
import org.edgebridge.outbox.CommandRecord;
import org.edgebridge.outbox.HistoryEntry;
import org.jspecify.annotations.Nullable;

/**
 * A command's life as a timeline (docs/desk.md, "A command's timeline"), built from what the outbox keeps: the row
 * (received, stored, the final with the request that made it final, the receipt's publication and the device's
 * PUBACK of it) and the history lines (attempts, and what ended an attempt without a final: retry later, failure,
 * release, park, an admin's decision, the expiry). A history line folds repeats of itself ({@code times}), so an
 * entry may stand for many attempts; its request, HTTP status and duration are the last time's. Oldest first; entries
 * of the same time keep the order of the command's life.
 */
final class CommandTimeline {
    /** History lines the row tells better: the final receipt's line (the row has the final and its request). */
    private static final String RECEIPT_LINE = "receipt";

    private CommandTimeline() {}

    static List<TimelineEntry> of(CommandRecord r, Optional<CommandLife> kept, List<HistoryEntry> history) {
        CommandLife life = kept.orElse(new CommandLife(null, null, null, null, null, null, null, null));
        List<TimelineEntry> entries = new ArrayList<>();
        entries.add(TimelineEntry.of(
                r.receivedAt(),
                "received",
                "the device's PUBLISH arrived on " + r.topic() + ", sequence " + r.sequence()
                        + (life.expiresAt() != null ? "; expires at " + life.expiresAt() : "")));
        if (life.storedAt() != null) {
            entries.add(TimelineEntry.of(
                    life.storedAt(),
                    "stored",
                    "written to the outbox in the transaction that made it durable; the stored receipt "
                            + "follows its commit"));
        }
        boolean attemptLine = false;
        for (HistoryEntry h : history) {
            if (RECEIPT_LINE.equals(h.kind()) && r.state().isFinal()) {
                continue;
            }
            attemptLine |= h.kind().equals("attempt");
            entries.add(fromHistory(h));
        }
        if (!attemptLine && r.attempts() > 0 && life.claimedAt() != null) {
            entries.add(new TimelineEntry(
                    life.claimedAt(),
                    "attempt",
                    "attempt " + r.attempts() + ", in flight",
                    life.lastRequestId(),
                    null,
                    null,
                    null,
                    null,
                    null,
                    null));
        }
        r.finalAt().ifPresent(at -> entries.add(finalEntry(r, life, at)));
        if (life.receiptPublishedAt() != null) {
            entries.add(TimelineEntry.of(
                    life.receiptPublishedAt(),
                    "receipt_published",
                    "the final receipt was handed to the broker for the device"));
        }
        if (life.receiptAckedAt() != null) {
            entries.add(TimelineEntry.of(
                    life.receiptAckedAt(), "receipt_acked", "the device acknowledged its final receipt (MQTT PUBACK)"));
        }
        entries.sort(Comparator.comparing(TimelineEntry::at)); // stable: the same time keeps the order above
        return entries;
    }

    private static TimelineEntry fromHistory(HistoryEntry h) {
        boolean repeated = h.times() > 1;
        String what = h.kind();
        return new TimelineEntry(
                repeated ? h.firstAt() : h.at(),
                what,
                describe(h),
                h.batchId(),
                h.httpStatus(),
                h.tookMs(),
                repeated ? h.times() : null,
                repeated ? h.at() : null,
                h.status(),
                h.code());
    }

    private static String describe(HistoryEntry h) {
        String detail = h.detail() == null ? "" : h.detail();
        return switch (h.kind()) {
            case "attempt" ->
                h.times() > 1
                        ? "sent to central " + h.times() + " times (the last: " + detail + ")"
                        : "sent to central (" + detail + ")";
            case "retry_later" -> "central answered retry_later: " + detail;
            case "failed_alone" -> "central failed on this command alone: " + detail;
            case "released" -> "back to pending, nothing known of it: " + detail;
            default -> detail;
        };
    }

    private static TimelineEntry finalEntry(CommandRecord r, CommandLife life, Instant at) {
        boolean byCentral = life.httpStatus() != null;
        String status = r.state().dbName();
        String detail = (byCentral ? "final: " : "final here: ")
                + status
                + (r.code() != null ? " (" + r.code() + ")" : "")
                + (r.message() != null ? ": " + r.message() : "");
        @Nullable String request = byCentral ? life.lastRequestId() : null;
        return new TimelineEntry(
                at, "final", detail, request, life.httpStatus(), life.tookMs(), null, null, status, r.code());
    }
}
