package org.edgebridge.outbox;

import java.util.List;
import org.jdbi.v3.core.Handle;

/** Applies settlements inside one transaction (see {@link Outbox#settle}). Only rows still in flight change. */
final class Settler {
    private Settler() {}

    /** Counts of what one settle did. */
    record Applied(List<Long> finals, int parked) {}

    static Applied apply(Handle handle, long now, String batchId, List<Settlement> settlements, int maxAttempts) {
        List<Settlement.Final> finalsToApply = new java.util.ArrayList<>();
        int parked = 0;
        for (Settlement s : settlements) {
            if (s instanceof Settlement.Final f) {
                finalsToApply.add(f);
            } else if (s instanceof Settlement.RetryLater r) {
                if (applyRetryLater(handle, r, now, batchId, maxAttempts)) {
                    parked++;
                }
            } else if (s instanceof Settlement.Release r) {
                applyRelease(handle, r, now, batchId);
            } else if (s instanceof Settlement.Park p && applyPark(handle, p, now, batchId)) {
                parked++;
            }
        }
        return new Applied(applyFinals(handle, finalsToApply, now, batchId), parked);
    }

    /** The common case, in two prepared batches: the final receipts, then their history lines. */
    private static List<Long> applyFinals(Handle handle, List<Settlement.Final> finals, long now, String batchId) {
        if (finals.isEmpty()) {
            return List.of();
        }
        var update = handle.prepareBatch("""
                UPDATE commands SET state = :state, code = :code, message = :message, result = :result,
                       final_at = :now, claimed_at = NULL, last_error = NULL
                WHERE id = :id AND state = 'inflight'""");
        for (Settlement.Final f : finals) {
            update.bind("state", f.status().dbName()).bind("code", f.code()).bind("message", f.message())
                    .bind("result", f.resultJson()).bind("now", now).bind("id", f.id()).add();
        }
        int[] counts = update.execute();
        List<Long> applied = new java.util.ArrayList<>(finals.size());
        var history = handle.prepareBatch("""
                INSERT INTO command_history (command, at, kind, batch_id, status, code, detail)
                VALUES (:id, :at, 'receipt', :b, :status, :code, :detail)""");
        for (int i = 0; i < finals.size(); i++) {
            if (counts[i] == 1) {
                Settlement.Final f = finals.get(i);
                applied.add(f.id());
                history.bind("id", f.id()).bind("at", now).bind("b", batchId).bind("status", f.status().dbName())
                        .bind("code", f.code()).bind("detail", f.message()).add();
            }
        }
        if (!applied.isEmpty()) {
            history.execute();
        }
        return applied;
    }

    /** @return true if the event was parked */
    private static boolean applyRetryLater(Handle handle, Settlement.RetryLater r, long now, String batchId, int maxAttempts) {
        int add = r.countsTowardParking() ? 1 : 0;
        String state = handle.createQuery("""
                UPDATE commands SET
                    state = CASE WHEN :add = 1 AND retry_laters + 1 >= :max THEN 'parked' ELSE 'pending' END,
                    retry_laters = retry_laters + :add, not_before = :nb, last_error = :reason, claimed_at = NULL
                WHERE id = :id AND state = 'inflight' RETURNING state""")
                .bind("add", add).bind("max", maxAttempts).bind("nb", r.notBefore().toEpochMilli())
                .bind("reason", r.reason()).bind("id", r.id())
                .mapTo(String.class).findOne().orElse(null);
        if (state == null) {
            return false;
        }
        history(handle, r.id(), now, "retry_later", batchId, null, null, r.reason());
        if (state.equals("parked")) {
            history(handle, r.id(), now, "parked", batchId, null, null,
                    "after " + maxAttempts + " retry_later answers from central");
            return true;
        }
        return false;
    }

    private static boolean applyPark(Handle handle, Settlement.Park p, long now, String batchId) {
        int n = handle.createUpdate("""
                UPDATE commands SET state = 'parked', code = :code, last_error = :reason, claimed_at = NULL
                WHERE id = :id AND state = 'inflight'""")
                .bind("code", p.code()).bind("reason", p.reason()).bind("id", p.id()).execute();
        if (n == 1) {
            history(handle, p.id(), now, "parked", batchId, null, p.code(), p.reason());
        }
        return n == 1;
    }

    private static void applyRelease(Handle handle, Settlement.Release r, long now, String batchId) {
        int n = handle.createUpdate("""
                UPDATE commands SET state = 'pending', claimed_at = NULL, last_error = :reason
                WHERE id = :id AND state = 'inflight'""")
                .bind("reason", r.reason()).bind("id", r.id()).execute();
        if (n == 1) {
            history(handle, r.id(), now, "released", batchId, null, null, r.reason());
        }
    }

    static void history(Handle handle, long id, long at, String kind, String batchId, String status, String code, String detail) {
        handle.createUpdate("""
                INSERT INTO command_history (command, at, kind, batch_id, status, code, detail)
                VALUES (:id, :at, :kind, :b, :status, :code, :detail)""")
                .bind("id", id).bind("at", at).bind("kind", kind).bind("b", batchId).bind("status", status)
                .bind("code", code).bind("detail", detail)
                .execute();
    }
}
