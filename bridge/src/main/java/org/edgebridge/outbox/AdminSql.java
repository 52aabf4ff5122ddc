package org.edgebridge.outbox;

import org.edgebridge.code.ReceiptCode;

/**
 * The SQL of what admins, the status page and diagnostics read and decide: {@link OutboxReads}, {@link ParkedDesk},
 * {@link PendingDesk} and the admin's end of every wait. Conventions: {@link OutboxSql}.
 */
final class AdminSql {
    // ---- admin ----

    static final String REQUEUE = """
            UPDATE commands SET state = 'pending', retry_laters = 0, central_failures = 0, not_before = 0,
                   last_error = NULL, code = NULL
            WHERE id = :id AND state = 'parked'""";

    /**
     * Every pending row that waits (a receipt's retryAfterMs, the per-event backoff) due now: an admin ends the waits.
     */
    static final String MAKE_PENDING_DUE =
            "UPDATE commands SET not_before = 0 WHERE state = 'pending' AND not_before > :now";

    static final String REJECT = """
            UPDATE commands SET state = 'rejected', code = 'rejected_by_admin',
                   message = 'rejected by an admin after it was parked', final_at = :now, receipt_published = 0
            WHERE id = :id AND state = 'parked'""";

    /**
     * A pending row set aside by an admin ({@link PendingDesk}): parked with its own code; its reason keeps the last
     * error.
     */
    static final String PARK_PENDING = """
            UPDATE commands SET state = 'parked', code = 'parked_by_admin', last_error = :reason
            WHERE id = :id AND state = 'pending'""";

    /** A pending row rejected by an admin ({@link PendingDesk}): final here, its receipt to the device. */
    static final String REJECT_PENDING = """
            UPDATE commands SET state = 'rejected', code = 'rejected_by_admin', message = :message, final_at = :now,
                   claimed_at = NULL, receipt_published = 0
            WHERE id = :id AND state = 'pending'""";

    /**
     * 1 when a claim of the row may have reached central (an attempt that did not provably stay here, see
     * V6__expiry.sql), else 0.
     */
    static final String MAYBE_SENT = "SELECT attempts > unsent_attempts FROM commands WHERE id = :id";

    /** The code a parked row is grouped by on the desk: its own, or {@link ReceiptCode#RETRY_LATER_LIMIT}. */
    static final String PARKED_CODE = "COALESCE(code, '" + ReceiptCode.RETRY_LATER_LIMIT.wire() + "')";

    /** Parked rows, oldest first, optionally of one desk code and one device; four fixed statements. */
    static String parked(boolean byCode, boolean byDevice) {
        return "SELECT " + OutboxSql.RECORD_COLUMNS + " FROM commands INDEXED BY commands_state WHERE state = 'parked'"
                + (byCode ? " AND " + PARKED_CODE + " = :code" : "")
                + (byDevice ? " AND client_id = :c" : "")
                + " ORDER BY id LIMIT :limit";
    }

    /** Parked rows per desk code and device: how many, and the oldest one's receipt time. */
    static final String PARKED_GROUPS = "SELECT " + PARKED_CODE + " AS code, client_id, COUNT(*) AS commands, "
            + "MIN(received_at) AS oldest_received_at FROM commands INDEXED BY commands_state WHERE state = 'parked' "
            + "GROUP BY 1, 2 ORDER BY 1, 2 LIMIT :limit";

    /** A final command's payload is dropped once its receipt was published (OutboxSql.MARK_PUBLISHED): none then. */
    static final String PAYLOAD =
            "SELECT payload FROM commands WHERE client_id = :c AND command_id = :id AND length(payload) > 0";

    // ---- reads for the admin API and status ----

    static final String HISTORY_OF = """
            SELECT at, kind, batch_id, status, code, detail, times, COALESCE(first_at, at) AS first_at, http_status,
                   took_ms
            FROM command_history WHERE command = :id ORDER BY id""";

    /** What the row keeps of a command's life besides its {@link CommandRecord} ({@link CommandLife}). */
    static final String LIFE_OF = """
            SELECT stored_at, claimed_at, batch_id AS last_request_id, http_status, took_ms, receipt_published_at,
                   receipt_acked_at, expires_at
            FROM commands WHERE id = :id""";

    /**
     * The admin listing: rows after (or, newest first, before) the cursor id, optionally of one state and one
     * device. The four filter combinations are four fixed statements, so that each keeps its own query plan.
     */
    static String list(boolean byState, boolean byDevice, boolean newestFirst) {
        return "SELECT " + OutboxSql.RECORD_COLUMNS + " FROM commands WHERE id " + (newestFirst ? "<" : ">") + " :after"
                + (byState ? " AND state = :state" : "")
                + (byDevice ? " AND client_id = :c" : "")
                + (newestFirst ? " ORDER BY id DESC LIMIT :limit" : " ORDER BY id LIMIT :limit");
    }

    static final String DEVICES = """
            SELECT d.client_id, d.last_sequence, d.first_seen_at, d.last_seen_at,
                   (SELECT COUNT(*) FROM commands c INDEXED BY commands_open
                    WHERE c.client_id = d.client_id AND c.state IN """ + OutboxSql.OPEN_STATES + """
                   ) AS open_commands
            FROM devices d ORDER BY d.client_id""";

    static final String RECENT_PROBLEMS = """
            SELECT c.client_id, c.command_id, h.at, h.kind, h.batch_id, h.status, h.code, h.detail, h.times,
                   COALESCE(h.first_at, h.at) AS first_at, h.http_status, h.took_ms
            FROM command_history h JOIN commands c ON c.id = h.command
            WHERE h.kind IN ('released', 'retry_later', 'failed_alone', 'parked', 'requeued', 'rejected_by_admin',
                             'parked_by_admin')
            ORDER BY h.at DESC LIMIT :limit""";

    static final String COUNT_OPEN = "SELECT COUNT(*) FROM commands WHERE state IN " + OutboxSql.OPEN_STATES;

    static final String COUNT_PER_STATE = "SELECT state, COUNT(*) AS rows_in_state FROM commands GROUP BY state";

    static final String OLDEST_OPEN = "SELECT MIN(received_at) FROM commands WHERE state IN " + OutboxSql.OPEN_STATES;

    private AdminSql() {}
}
