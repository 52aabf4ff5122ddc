package org.edgebridge.outbox;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.jdbi.v3.core.Handle;
import org.jspecify.annotations.Nullable;

/**
 * Applies settlements inside one transaction (see {@link Outbox#settle}), and releases claims. Only rows still in flight
 * change. The final receipts, nearly every settlement, are the hot path: they run on the writer's kept plain JDBC
 * statements ({@link NamedStatements}), as the claim does; through Jdbi's batch and row mapping the settle's Java time
 * was about a third of the outbox writer's (JFR of B3, docs/BENCHMARKS.md). The rare settlements (retry
 * later, failed alone, park, release) stay on Jdbi.
 */
final class Settler {
    private Settler() {}

    /** Counts of what one settle did. */
    record Applied(List<Long> finals, int parked) {}

    static Applied apply(
            Handle handle,
            NamedStatements sql,
            long now,
            SentRequest request,
            List<Settlement> settlements,
            int maxAttempts)
            throws SQLException {
        List<Settlement.Final> finalsToApply = new ArrayList<>();
        int parked = 0;
        for (Settlement s : settlements) {
            if (s instanceof Settlement.Final f) {
                finalsToApply.add(f);
            } else if (s instanceof Settlement.RetryLater r) {
                if (applyRetryLater(handle, r, now, request, maxAttempts)) {
                    parked++;
                }
            } else if (s instanceof Settlement.FailedAlone f) {
                applyFailedAlone(handle, f, now, request);
            } else if (s instanceof Settlement.Release r) {
                applyRelease(handle, r, now, request);
            } else if (s instanceof Settlement.Park p && applyPark(handle, p, now, request)) {
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
        NamedStatements.Named update = sql.get(OutboxSql.SETTLE_FINAL);
        for (Settlement.Final f : finals) {
            update.set("state", f.status().dbName())
                    .set("code", f.code())
                    .set("message", f.message())
                    .set("result", f.resultJson())
                    .set("now", now)
                    .set("id", f.id())
                    .set("http", request.statusOrNull())
                    .set("took", request.tookOrNull())
                    .statement()
                    .addBatch();
        }
        int[] counts = update.statement().executeBatch();
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
                        .statement()
                        .addBatch();
            }
        }
        if (!applied.isEmpty()) {
            history.statement().executeBatch();
        }
        return applied;
    }

    /** @return true if the event was parked */
    private static boolean applyRetryLater(
            Handle handle, Settlement.RetryLater r, long now, SentRequest request, int maxAttempts) {
        CommandState state = handle.createQuery(OutboxSql.SETTLE_RETRY_LATER)
                .bind("add", r.countsTowardParking() ? 1 : 0)
                .bind("max", maxAttempts)
                .bind("nb", r.notBefore().toEpochMilli())
                .bind("reason", bounded(r.reason()))
                .bind("id", r.id())
                .mapTo(CommandState.class)
                .findOne()
                .orElse(null);
        if (state == null) {
            return false;
        }
        history(handle, r.id(), now, "retry_later", request, null, r.reason());
        if (state == CommandState.PARKED) {
            history(
                    handle,
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

    private static boolean applyPark(Handle handle, Settlement.Park p, long now, SentRequest request) {
        int n = handle.createUpdate(OutboxSql.SETTLE_PARK)
                .bind("code", p.code())
                .bind("reason", bounded(p.reason()))
                .bind("id", p.id())
                .execute();
        if (n == 1) {
            history(handle, p.id(), now, "parked", request, p.code(), p.reason());
        }
        return n == 1;
    }

    private static void applyFailedAlone(Handle handle, Settlement.FailedAlone f, long now, SentRequest request) {
        int n = handle.createUpdate(OutboxSql.SETTLE_FAILED_ALONE)
                .bind("nb", f.notBefore().toEpochMilli())
                .bind("reason", bounded(f.reason()))
                .bind("id", f.id())
                .execute();
        if (n == 1) {
            history(handle, f.id(), now, "failed_alone", request, null, f.reason());
        }
    }

    private static void applyRelease(Handle handle, Settlement.Release r, long now, SentRequest request) {
        int n = handle.createUpdate(OutboxSql.SETTLE_RELEASE)
                .bind("reason", bounded(r.reason()))
                .bind("id", r.id())
                .bind("unsent", r.sent() ? 0 : 1)
                .execute();
        if (n == 1) {
            history(handle, r.id(), now, "released", request, null, r.reason());
        }
    }

    /** The rows of one claim still in flight back to pending ({@link Outbox#releaseClaim}). @return how many */
    static int releaseClaim(Handle handle, long now, String claimId, String reason, boolean sent) {
        List<Long> ids = handle.createQuery(OutboxSql.INFLIGHT_OF_CLAIM)
                .bind("b", claimId)
                .mapTo(Long.class)
                .list();
        for (long id : ids) {
            history(handle, id, now, "released", claimId, null, null, reason);
        }
        handle.createUpdate(OutboxSql.RELEASE_CLAIM)
                .bind("b", claimId)
                .bind("reason", bounded(reason))
                .bind("unsent", sent ? 0 : 1)
                .execute();
        return ids.size();
    }

    /** The rows with these ids, in id order (the finals of a settle, with their receipts), on a kept statement. */
    static List<CommandRecord> records(NamedStatements sql, List<Long> ids) throws SQLException {
        if (ids.isEmpty()) {
            return List.of();
        }
        List<CommandRecord> records = new ArrayList<>(ids.size());
        PreparedStatement q =
                sql.get(OutboxSql.BY_IDS).set("ids", OutboxSql.idList(ids)).statement();
        try (ResultSet rs = q.executeQuery()) {
            while (rs.next()) {
                records.add(OutboxRows.commandRecord(rs, null));
            }
        }
        return records;
    }

    /** Every row in flight back to pending ({@link Outbox#releaseAbandonedClaims}). @return how many */
    static int releaseAbandonedClaims(Handle handle, long now) {
        List<Long> ids =
                handle.createQuery(OutboxSql.INFLIGHT).mapTo(Long.class).list();
        for (long id : ids) {
            history(handle, id, now, "released", null, null, null, "claimed by a request that never completed");
        }
        handle.createUpdate(OutboxSql.RELEASE_ALL_INFLIGHT).execute();
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
            Handle handle,
            long id,
            long at,
            String kind,
            @Nullable String batchId,
            @Nullable String status,
            @Nullable String code,
            String detail) {
        history(handle, id, at, kind, batchId, status, code, detail, null, null);
    }

    /** A line that ends an attempt without a final: with the request's id, HTTP status and duration. */
    private static void history(
            Handle handle, long id, long at, String kind, SentRequest request, @Nullable String code, String detail) {
        history(
                handle,
                id,
                at,
                kind,
                request.batchId(),
                null,
                code,
                detail,
                request.statusOrNull(),
                request.tookOrNull());
    }

    private static void history(
            Handle handle,
            long id,
            long at,
            String kind,
            @Nullable String batchId,
            @Nullable String status,
            @Nullable String code,
            String detail,
            @Nullable Integer httpStatus,
            @Nullable Long tookMs) {
        for (String sql : List.of(OutboxSql.HISTORY_FOLD, OutboxSql.HISTORY_IF_NEW)) {
            handle.createUpdate(sql)
                    .bind("id", id)
                    .bind("at", at)
                    .bind("kind", kind)
                    .bind("b", batchId)
                    .bind("status", status)
                    .bind("code", code)
                    .bind("detail", bounded(detail))
                    .bind("http", httpStatus)
                    .bind("took", tookMs)
                    .execute();
        }
    }
}
