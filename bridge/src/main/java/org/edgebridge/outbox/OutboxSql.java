package org.edgebridge.outbox;

import java.util.Collection;

/**
 * The outbox's SQL that every role shares: the fragments the others are built of (a list of ids as one parameter,
 * the open and final states, a {@link CommandRecord}'s columns), the writer's transaction ({@link OutboxWriter}), a
 * command by its key or by id, its history lines, and the marks of published and acknowledged receipts. The SQL of
 * each role is in a holder of its own: {@link IntakeSql}, {@link ForwarderSql}, {@link AdminSql} (the desk and the
 * admin's reads), {@link UpkeepSql} (retention, the file, checkpoints, migrations).
 *
 * <p>In every holder: parameters are named ({@code :name}) and bound by name ({@link NamedStatements}); a list of row
 * ids is one parameter, {@code :ids}, bound to {@link #idList} ({@link #IDS}); columns are selected under the names
 * of the record components they fill, and read by name, never by index. {@code OutboxQueryPlanTest} checks the
 * query plan of each hot statement.
 */
final class OutboxSql {
    /**
     * "In these row ids", as one parameter: a JSON array ({@link #idList}) read by SQLite's {@code json_each}. One SQL
     * text for any number of ids, so that the statement is parsed, planned and kept once ({@link NamedStatements}); a
     * list expanded into {@code (?, ?, …)} was a new statement for each length. Each id is a lookup by primary key.
     */
    static final String IDS = "(SELECT value FROM json_each(:ids))";

    /** The parameter of {@link #IDS}: the ids as a JSON array. */
    static String idList(Collection<Long> ids) {
        StringBuilder json = new StringBuilder(ids.size() * 8 + 2).append('[');
        for (Long id : ids) {
            if (json.length() > 1) {
                json.append(',');
            }
            json.append(id.longValue());
        }
        return json.append(']').toString();
    }

    static final String OPEN_STATES = "('pending', 'inflight', 'parked')";

    static final String FINAL_STATES = "('accepted', 'duplicate', 'rejected')";

    /** The columns of a {@link CommandRecord}. */
    static final String RECORD_COLUMNS =
            "id, client_id, command_id, sequence, topic, type, payload_sha256, received_at, "
                    + "state, attempts, retry_laters, not_before, last_error, code, message, result AS result_json, "
                    + "final_at";

    static final String BEGIN_IMMEDIATE = "BEGIN IMMEDIATE";

    static final String COMMIT = "COMMIT";

    static final String ROLLBACK = "ROLLBACK";

    /** One request of a group inside the writer's transaction ({@link OutboxWriter}). */
    static final String SAVEPOINT = "SAVEPOINT request";

    static final String RELEASE_SAVEPOINT = "RELEASE request";

    static final String ROLLBACK_TO_SAVEPOINT = "ROLLBACK TO request";

    /** One command by its key: its client id and command id. */
    static final String FIND = "SELECT " + RECORD_COLUMNS + " FROM commands WHERE client_id = :c AND command_id = :id";

    static final String BY_IDS = "SELECT " + RECORD_COLUMNS + " FROM commands WHERE id IN " + IDS + " ORDER BY id";

    /**
     * One line of a command's history that happens once per command (its final receipt, and its first attempt: only a
     * claim writes an attempt line, and {@code attempts} only grows): a plain insert. Every other line is written by
     * {@link #HISTORY_FOLD} then {@link #HISTORY_IF_NEW} (see V5__history_folded.sql).
     */
    static final String HISTORY = """
            INSERT INTO command_history (command, at, kind, batch_id, status, code, detail)
            VALUES (:id, :at, :kind, :b, :status, :code, :detail)""";

    /** The same line again: folded into the command's line of the same kind, status and code, if it has one. */
    static final String HISTORY_FOLD = """
            UPDATE command_history SET times = times + 1, first_at = COALESCE(first_at, at), at = :at, batch_id = :b,
                   detail = :detail, http_status = :http, took_ms = :took
            WHERE id = (SELECT MAX(id) FROM command_history INDEXED BY command_history_command
                        WHERE command = :id AND kind = :kind AND status IS :status AND code IS :code)""";

    /** A line the command does not have yet (run after {@link #HISTORY_FOLD}, which found none to fold into). */
    static final String HISTORY_IF_NEW = """
            INSERT INTO command_history (command, at, kind, batch_id, status, code, detail, http_status, took_ms)
            SELECT :id, :at, :kind, :b, :status, :code, :detail, :http, :took
            WHERE NOT EXISTS (SELECT 1 FROM command_history INDEXED BY command_history_command
                              WHERE command = :id AND kind = :kind AND status IS :status AND code IS :code)""";

    /**
     * The final receipts of these rows were handed to the broker: their payloads are dropped, since a resend
     * needs only the payload's SHA-256 and the receipt, and the space goes back to the file's free pages. {@code :now}
     * is when the caller was done handing them over (the first time is kept: the command's timeline); a device's
     * PUBACK recorded already (it came while the caller was still handing over others) is the latest it can be.
     */
    static final String MARK_PUBLISHED = "UPDATE commands SET receipt_published = 1, payload = CASE WHEN state IN "
            + FINAL_STATES + " THEN X'' ELSE payload END, receipt_published_at = COALESCE(receipt_published_at, "
            + "MIN(:now, COALESCE(receipt_acked_at, :now))) WHERE id IN " + IDS;

    /** A device's PUBACK of a command's final receipt: the first one is kept (the command's timeline). */
    static final String MARK_ACKED =
            "UPDATE commands SET receipt_acked_at = :at WHERE client_id = :c AND command_id = :id "
                    + "AND receipt_acked_at IS NULL AND state IN " + FINAL_STATES;

    private OutboxSql() {}
}
