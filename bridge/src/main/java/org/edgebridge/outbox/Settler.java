package org.edgebridge.outbox;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Applies settlements inside one transaction (see {@link Outbox#settle}), and releases claims. Only rows still in
 * flight change. Every statement runs on the write connection's kept statements ({@link NamedStatements}), the SQL in
 * {@link ForwarderSql} and, for the history lines, {@link OutboxSql}. The final receipts, nearly every settlement, are
 * the hot path: one batch of updates, one of history lines.
 */
final class Settler {
    private Settler() {}

    /** Counts of what one settle did. */
    record Applied(List<Long> finals, int parked) {}

    static Applied apply(
            NamedStatements sql, long now, SentRequest request, List<Settlement> settlements, int maxAttempts)
            throws SQLException {
        List<Settlement.Final> finalsToApply = new ArrayList<>();
        int parked = 0;
        for (Settlement s : settlements) {
            if (s instanceof Settlement.Final f) {
                finalsToApply.add(f);
            } else if (s instanceof Settlement.RetryLater r) {
                if (applyRetryLater(sql, r, now, request, maxAttempts)) {
                    parked++;
                }
            } else if (s instanceof Settlement.FailedAlone f) {
                applyFailedAlone(sql, f, now, request);
            } else if (s instanceof Settlement.Release r) {
                applyRelease(sql, r, now, request);
            } else if (s instanceof Settlement.Park p && applyPark(sql, p, now, request)) {
                parked++;
            }
        }
        return new Applied(applyFinals(sql, finalsToApply, now, request), parked);
    }

    /**
     * The common case, in two batches of kept statements: the final receipts (with the request's HTTP status and
     * duration on the row, for the timeline), then their history lines.
     */
    private static List<Long> applyFinals(
            NamedStatements sql, List<Settlement.Final> finals, long now, SentRequest request) throws SQLException {
        if (finals.isEmpty()) {
            return List.of();
        }
        NamedStatements.Named update = sql.get(ForwarderSql.SETTLE_FINAL);
        for (Settlement.Final f : finals) {
            update.set("state", f.status().dbName())
                    .set("code", f.code())
                    .set("message", f.message())
                    .set("result", f.resultJson())
                    .set("now", now)
                    .set("id", f.id())
                    .set("http", request.statusOrNull())
                    .set("took", request.tookOrNull())
                    .addBatch();
        }
        int[] counts = update.runBatch();
        List<Long> applied = new ArrayList<>(finals.size());
        NamedStatements.Named history = sql.get(OutboxSql.HISTORY);
        for (int i = 0; i < finals.size(); i++) {
            if (counts[i] == 1) {
                Settlement.Final f = finals.get(i);
                applied.add(f.id());
                history.set("id", f.id())
                        .set("at", now)
                        .set("kind", "receipt")
                        .set("b", request.batchId())
                        .set("status", f.status().dbName())
                        .set("code", f.code())
                        .set("detail", f.message())
                        .addBatch();
            }
        }
        if (!applied.isEmpty()) {
            history.runBatch();
        }
        return applied;
    }

    /** @return true if the event was parked */
    private static boolean applyRetryLater(
            NamedStatements sql, Settlement.RetryLater r, long now, SentRequest request, int maxAttempts)
            throws SQLException {
        CommandState state = sql.get(ForwarderSql.SETTLE_RETRY_LATER)
                .set("add", r.countsTowardParking() ? 1 : 0)
                .set("max", maxAttempts)
                .set("nb", r.notBefore().toEpochMilli())
                .set("reason", bounded(r.reason()))
                .set("id", r.id())
                .first(rs -> CommandState.fromDb(rs.getString("state")))
                .orElse(null);
        if (state == null) {
            return false;
        }
        history(sql, r.id(), now, "retry_later", request, null, r.reason());
        if (state == CommandState.PARKED) {
            history(
                    sql,
                    r.id(),
                    now,
                    "parked",
                    request,
                    null,
                    "after " + maxAttempts + " retry_later answers from central");
            return true;
        }
        return false;
    }

    private static boolean applyPark(NamedStatements sql, Settlement.Park p, long now, SentRequest request)
            throws SQLException {
        int n = sql.get(ForwarderSql.SETTLE_PARK)
                .set("code", p.code())
                .set("reason", bounded(p.reason()))
                .set("id", p.id())
                .update();
        if (n == 1) {
            history(sql, p.id(), now, "parked", request, p.code(), p.reason());
        }
        return n == 1;
    }

    private static void applyFailedAlone(NamedStatements sql, Settlement.FailedAlone f, long now, SentRequest request)
            throws SQLException {
        int n = sql.get(ForwarderSql.SETTLE_FAILED_ALONE)
                .set("nb", f.notBefore().toEpochMilli())
                .set("reason", bounded(f.reason()))
                .set("id", f.id())
                .update();
        if (n == 1) {
            history(sql, f.id(), now, "failed_alone", request, null, f.reason());
        }
    }

    private static void applyRelease(NamedStatements sql, Settlement.Release r, long now, SentRequest request)
            throws SQLException {
        int n = sql.get(ForwarderSql.SETTLE_RELEASE)
                .set("reason", bounded(r.reason()))
                .set("id", r.id())
                .set("unsent", r.sent() ? 0 : 1)
                .update();
        if (n == 1) {
            history(sql, r.id(), now, "released", request, null, r.reason());
        }
    }

    /** The rows of one claim still in flight back to pending ({@link Outbox#releaseClaim}). @return how many */
    static int releaseClaim(NamedStatements sql, long now, String claimId, String reason, boolean sent)
            throws SQLException {
        List<Long> ids =
                sql.get(ForwarderSql.INFLIGHT_OF_CLAIM).set("b", claimId).list(rs -> rs.getLong("id"));
        for (long id : ids) {
            history(sql, id, now, "released", claimId, null, null, reason);
        }
        sql.get(ForwarderSql.RELEASE_CLAIM)
                .set("b", claimId)
                .set("reason", bounded(reason))
                .set("unsent", sent ? 0 : 1)
                .update();
        return ids.size();
    }

    /** The rows with these ids, in id order (the finals of a settle, with their receipts, or a desk's decisions). */
    static List<CommandRecord> records(NamedStatements sql, List<Long> ids) throws SQLException {
        if (ids.isEmpty()) {
            return List.of();
        }
        return sql.get(OutboxSql.BY_IDS).set("ids", OutboxSql.idList(ids)).list(OutboxRows::commandRecord);
    }

    /** Every row in flight back to pending ({@link Outbox#releaseAbandonedClaims}). @return how many */
    static int releaseAbandonedClaims(NamedStatements sql, long now) throws SQLException {
        List<Long> ids = sql.get(ForwarderSql.INFLIGHT).list(rs -> rs.getLong("id"));
        for (long id : ids) {
            history(sql, id, now, "released", null, null, null, "claimed by a request that never completed");
        }
        sql.get(ForwarderSql.RELEASE_ALL_INFLIGHT).update();
        return ids.size();
    }

    /** Most characters of a reason or detail kept in a row or a history line: central's text is untrusted. */
    static final int MAX_REASON_CHARS = 1000;

    /** {@code text} cut to {@link #MAX_REASON_CHARS} (a 300 KiB Location header must not go into 500 rows). */
    static String bounded(String text) {
        return text == null || text.length() <= MAX_REASON_CHARS ? text : text.substring(0, MAX_REASON_CHARS) + "…";
    }

    /** One history line, folded into the command's line of the same kind, status and code if it has one. */
    static void history(
            NamedStatements sql,
            long id,
            long at,
            String kind,
            @Nullable String batchId,
            @Nullable String status,
            @Nullable String code,
            String detail)
            throws SQLException {
        history(sql, id, at, kind, batchId, status, code, detail, null, null);
    }

    /** A line that ends an attempt without a final: with the request's id, HTTP status and duration. */
    private static void history(
            NamedStatements sql,
            long id,
            long at,
            String kind,
            SentRequest request,
            @Nullable String code,
            String detail)
            throws SQLException {
        history(sql, id, at, kind, request.batchId(), null, code, detail, request.statusOrNull(), request.tookOrNull());
    }

    private static void history(
            NamedStatements sql,
            long id,
            long at,
            String kind,
            @Nullable String batchId,
            @Nullable String status,
            @Nullable String code,
            String detail,
            @Nullable Integer httpStatus,
            @Nullable Long tookMs)
            throws SQLException {
        for (String line : List.of(OutboxSql.HISTORY_FOLD, OutboxSql.HISTORY_IF_NEW)) {
            sql.get(line)
                    .set("id", id)
                    .set("at", at)
                    .set("kind", kind)
                    .set("b", batchId)
                    .set("status", status)
                    .set("code", code)
                    .set("detail", bounded(detail))
                    .set("http", httpStatus)
                    .set("took", tookMs)
                    .update();
        }
    }
}
