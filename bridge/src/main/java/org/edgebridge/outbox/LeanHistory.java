package org.edgebridge.outbox;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The history lines that {@code outbox.leanHistory} leaves unwritten, read back from the row (V9__lean_history.sql):
 * a command's first {@code attempt} line (its claim's time on the row, its request the row's {@code batch_id} while
 * the command has one attempt) and the {@code receipt} line of a final settled from central's answer (the request on
 * the row; time, status, code and detail the row's {@code final_at}, state, code and message). {@link #merge} puts
 * them where the switch off would have written them, so the history and the timeline read the same either way.
 */
final class LeanHistory {
    private LeanHistory() {}

    /** Kinds that only a claim's request can cause: they come after the command's first attempt, whatever the time. */
    private static final Set<String> AFTER_AN_ATTEMPT =
            Set.of("retry_later", "failed_alone", "released", "parked", "receipt");

    /**
     * What the row keeps instead of those lines ({@link AdminSql#LEAN_LINES_OF}).
     *
     * @param firstClaimedAt null: the first attempt has its line (or there was none)
     * @param finalRequestId null: a final has its receipt line (or is not one central's answer made)
     */
    record Kept(
            @Nullable Instant firstClaimedAt,
            @Nullable String batchId,
            @Nullable String finalRequestId,
            @Nullable Instant finalAt,
            CommandState state,
            @Nullable String code,
            @Nullable String message) {
        static Kept read(ResultSet rs) throws SQLException {
            return new Kept(
                    OutboxRows.instant(rs, "first_claimed_at"),
                    rs.getString("batch_id"),
                    rs.getString("final_request_id"),
                    OutboxRows.instant(rs, "final_at"),
                    CommandState.fromDb(rs.getString("state")),
                    rs.getString("code"),
                    rs.getString("message"));
        }
    }

    /**
     * The lines as the switch off would have kept them: the first attempt folded into the command's {@code attempt}
     * line (one more time, from the first claim's time), or that line itself where the command has none, placed where
     * it happened; the receipt line last.
     *
     * @param lines the command's lines in {@code command_history}, in their order (by id)
     */
    static List<HistoryEntry> merge(List<HistoryEntry> lines, Kept row) {
        if (row.firstClaimedAt() == null && row.finalRequestId() == null) {
            return lines;
        }
        List<HistoryEntry> out = new ArrayList<>(lines);
        Instant first = row.firstClaimedAt();
        if (first != null) {
            int at = attemptLine(out);
            HistoryEntry attempt;
            if (at >= 0) {
                HistoryEntry later = out.remove(at); // the second attempt and on, folded as the switch off folds
                attempt = new HistoryEntry(
                        later.at(),
                        later.kind(),
                        later.batchId(),
                        later.status(),
                        later.code(),
                        later.detail(),
                        later.times() + 1,
                        first,
                        later.httpStatus(),
                        later.tookMs());
            } else {
                attempt = new HistoryEntry(
                        first, "attempt", row.batchId(), null, null, "attempt 1", 1, first, null, null);
            }
            out.add(placeOfFirstAttempt(out, first), attempt);
        }
        if (row.finalRequestId() != null
                && row.finalAt() != null
                && row.state().isFinal()
                && out.stream().noneMatch(h -> h.kind().equals("receipt"))) {
            out.add(new HistoryEntry(
                    row.finalAt(),
                    "receipt",
                    row.finalRequestId(),
                    row.state().dbName(),
                    row.code(),
                    row.message(),
                    1,
                    row.finalAt(),
                    null,
                    null));
        }
        return out;
    }

    /** The command's attempt line (a claim writes it with no status and no code), or -1. */
    private static int attemptLine(List<HistoryEntry> lines) {
        for (int i = 0; i < lines.size(); i++) {
            HistoryEntry h = lines.get(i);
            if (h.kind().equals("attempt") && h.status() == null && h.code() == null) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Where the first attempt's line goes: before the first line that came after it (lines are in the order they
     * first happened). That is a line that only an attempt can cause, or one that first happened later; an admin's
     * park or requeue of a pending command at the same millisecond stays before it.
     */
    private static int placeOfFirstAttempt(List<HistoryEntry> lines, Instant first) {
        for (int i = 0; i < lines.size(); i++) {
            HistoryEntry h = lines.get(i);
            if (AFTER_AN_ATTEMPT.contains(h.kind()) || h.firstAt().isAfter(first)) {
                return i;
            }
        }
        return lines.size();
    }
}
