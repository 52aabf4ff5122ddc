package org.edgebridge.outbox;

/**
 * Every SQL statement of the outbox but what admins read and decide ({@link AdminSql}): {@link Outbox}, {@link Claimer} and
 * {@link Settler} run these through Jdbi, {@link CommandWriter} and {@link Claimer} on prepared JDBC statements, and
 * {@code OutboxQueryPlanTest} checks the query plan of each hot one. Parameters are named ({@code :name}), but for
 * the writer's (positional); a list of row ids is one parameter, {@code :ids}, bound to {@link #idList} ({@link #IDS}).
 * Columns are selected under the names of the record components they fill (Jdbi's {@code ConstructorMapper} matches
 * {@code snake_case} columns to {@code camelCase} components), so no row is read by column index.
 */
final class OutboxSql {
    /**
     * "In these row ids", as one parameter: a JSON array ({@link #idList}) read by SQLite's {@code json_each}. One SQL
     * text for any number of ids, so that the statement is parsed, planned and kept once ({@link KeptStatements}); a
     * list expanded into {@code (?, ?, …)} was a new statement for each length. Each id is a lookup by primary key.
     */
    static final String IDS = "(SELECT value FROM json_each(:ids))";

    /** The parameter of {@link #IDS}: the ids as a JSON array. */
    static String idList(java.util.Collection<Long> ids) {
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
                    + "state, attempts, retry_laters, not_before, last_error, code, message, result AS result_json, final_at";

    // ---- intake (CommandWriter: prepared once on its own connection) ----

    static final String BEGIN_IMMEDIATE = "BEGIN IMMEDIATE";
    static final String COMMIT = "COMMIT";
    static final String ROLLBACK = "ROLLBACK";
    /** One request of a group inside the writer's transaction ({@link OutboxWriter}). */
    static final String SAVEPOINT = "SAVEPOINT request";

    static final String RELEASE_SAVEPOINT = "RELEASE request";
    static final String ROLLBACK_TO_SAVEPOINT = "ROLLBACK TO request";
    /** One command of the intake's request ({@link CommandWriter}), inside the request's savepoint. */
    static final String SAVEPOINT_COMMAND = "SAVEPOINT command";

    static final String RELEASE_COMMAND = "RELEASE command";
    static final String ROLLBACK_TO_COMMAND = "ROLLBACK TO command";

    // The writer's three statements run on plain JDBC prepared statements (CommandWriter says why), so their
    // parameters are positional: each statement's comment names them in order.

    /**
     * One command by its key. Jdbi binds {@code :c} and {@code :id} by name; on plain JDBC (the writer's kept statement)
     * SQLite numbers named parameters in the order they appear, so they are 1 client id, 2 command id.
     */
    static final String FIND = "SELECT " + RECORD_COLUMNS + " FROM commands WHERE client_id = :c AND command_id = :id";

    /** ?1 client id, ?2 received at. */
    static final String NEXT_SEQUENCE = """
            INSERT INTO devices (client_id, last_sequence, first_seen_at, last_seen_at) VALUES (?1, 1, ?2, ?2)
            ON CONFLICT (client_id) DO UPDATE SET last_sequence = last_sequence + 1, last_seen_at = ?2
            RETURNING last_sequence""";

    /** ?1 client id: the device's open commands and their payload bytes (kept by V7__device_share.sql's triggers). */
    static final String DEVICE_SHARE = "SELECT open_count, open_bytes FROM devices WHERE client_id = ?";

    /**
     * 1 client id, 2 command id, 3 sequence, 4 topic, 5 type, 6 payload, 7 payload sha256, 8 received at, 9 expires at
     * (NULL: never), 10 stored at (the writer's time in the transaction that commits it: the timeline's "stored").
     */
    static final String INSERT = """
            INSERT INTO commands (client_id, command_id, sequence, topic, type, payload, payload_sha256, received_at, state,
                                  expires_at, stored_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)
            RETURNING id""";

    // ---- claim (Claimer) ----

    /**
     * Per device, the row of its lowest open sequence, if that row is pending and due, and central was told of every
     * command of the device that expired here ({@link #UNREPORTED_EXPIRIES}). Only devices with open commands are
     * visited ({@code devices_with_open}, kept by V7__device_share.sql's triggers), not every device ever seen.
     * CROSS JOIN fixes the join order: one index seek per such device, whatever the backlog (a device whose head waits costs one seek,
     * not a scan of its rows). NOT INDEXED makes the head row a lookup by its id: left to itself, SQLite 3's planner
     * seeks {@code commands_state} (state, id) there and then the row as well.
     */
    static final String CLAIM_HEADS = """
            SELECT c.id, c.client_id, c.sequence FROM devices d INDEXED BY devices_with_open
            CROSS JOIN commands c NOT INDEXED ON c.id = (SELECT o.id FROM commands o INDEXED BY commands_open
                                             WHERE o.client_id = d.client_id AND o.state IN """ + OPEN_STATES + """

                                             ORDER BY o.sequence LIMIT 1)
            WHERE d.open_count > 0 AND c.state = 'pending' AND c.not_before <= :now AND c.id <= :maxId
              AND NOT EXISTS (SELECT 1 FROM commands x INDEXED BY commands_expiry_unreported
                              WHERE x.client_id = d.client_id AND x.expiry_reported = 0)
            ORDER BY c.id LIMIT :limit""";

    /**
     * A device's open rows from its head on, in sequence order: their sizes, not their payloads (length() of a BLOB
     * reads the record header, not the payload's pages), so that the claim reads only the payloads that fit.
     */
    static final String CLAIM_RUN = """
            SELECT id, command_id, sequence, topic, type, length(payload) AS payload_bytes, payload_sha256, received_at,
                   state, not_before, attempts, central_failures, expires_at, unsent_attempts
            FROM commands INDEXED BY commands_open WHERE client_id = :c AND sequence >= :head AND state IN """ + OPEN_STATES + """

            ORDER BY sequence LIMIT :limit""";

    /** The payloads of the rows a claim took. */
    static final String CLAIM_PAYLOADS = "SELECT id, payload FROM commands WHERE id IN " + IDS;

    static final String CLAIM_MARK = """
            UPDATE commands SET state = 'inflight', claimed_at = :now, attempts = attempts + 1, batch_id = :b
            WHERE id = :id""";

    // ---- expiry (Outbox.expireDue, Outbox.unreportedExpiries) ----

    /**
     * Pending rows central never saw (every claim of theirs provably stayed here: {@code unsent_attempts}) whose expiry
     * has passed: they become final here (docs/protocol.md §1.4).
     */
    static final String EXPIRING = """
            SELECT id FROM commands INDEXED BY commands_expiring
            WHERE expires_at IS NOT NULL AND state = 'pending' AND expires_at <= :now AND attempts = unsent_attempts
            ORDER BY expires_at LIMIT :limit""";

    static final String EXPIRE = """
            UPDATE commands SET state = 'rejected', code = 'expired', message = :message, final_at = :now,
                   claimed_at = NULL, receipt_published = 0, expiry_reported = 0
            WHERE id = :id AND state = 'pending' AND attempts = unsent_attempts""";

    /** Commands that expired here and central has not been told of, oldest first (docs/protocol.md §2.2). */
    static final String UNREPORTED_EXPIRIES = """
            SELECT id, client_id, command_id, sequence, expires_at FROM commands INDEXED BY commands_expiry_unreported
            WHERE expiry_reported = 0 ORDER BY id LIMIT :limit""";

    static final String MARK_EXPIRY_REPORTED = "UPDATE commands SET expiry_reported = 1 WHERE id IN " + IDS;

    // ---- settle (Settler) ----

    static final String SETTLE_FINAL = """
            UPDATE commands SET state = :state, code = :code, message = :message, result = :result,
                   final_at = :now, claimed_at = NULL, last_error = NULL, http_status = :http, took_ms = :took
            WHERE id = :id AND state = 'inflight'""";

    /** Pending again, or parked at the limit of central's retry_later answers; returns the new state. */
    static final String SETTLE_RETRY_LATER = """
            UPDATE commands SET
                state = CASE WHEN :add = 1 AND retry_laters + 1 >= :max THEN 'parked' ELSE 'pending' END,
                retry_laters = retry_laters + :add, not_before = :nb, last_error = :reason, claimed_at = NULL
            WHERE id = :id AND state = 'inflight' RETURNING state""";

    /** Pending again, one more time central failed on this event alone; the caller parks at the limit. */
    static final String SETTLE_FAILED_ALONE = """
            UPDATE commands SET state = 'pending', central_failures = central_failures + 1, not_before = :nb,
                   last_error = :reason, claimed_at = NULL
            WHERE id = :id AND state = 'inflight'""";

    static final String SETTLE_PARK = """
            UPDATE commands SET state = 'parked', code = :code, last_error = :reason, claimed_at = NULL
            WHERE id = :id AND state = 'inflight'""";

    /** :unsent 1 when the row provably did not reach central with this claim (see V6__expiry.sql), else 0. */
    static final String SETTLE_RELEASE = """
            UPDATE commands SET state = 'pending', claimed_at = NULL, last_error = :reason,
                   unsent_attempts = unsent_attempts + :unsent
            WHERE id = :id AND state = 'inflight'""";

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

    // ---- receipts, releases, retention ----

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

    /**
     * Devices after {@code :after} (by client id) with final receipts committed but never handed to the broker: one
     * seek per device with a row, not a scan of the rows (a device that never reads may have a million).
     */
    static final String UNPUBLISHED_DEVICES = """
            SELECT d.client_id FROM devices d
            WHERE d.client_id > :after AND EXISTS (SELECT 1 FROM commands c INDEXED BY commands_unpublished_device
                         WHERE c.client_id = d.client_id AND c.receipt_published = 0 AND c.state IN """ + FINAL_STATES + """
            )
            ORDER BY d.client_id LIMIT :limit""";

    /** One device's oldest final receipts committed but never handed to the broker. */
    static final String UNPUBLISHED =
            "SELECT " + RECORD_COLUMNS + " FROM commands INDEXED BY commands_unpublished_device"
                    + " WHERE client_id = :c AND receipt_published = 0 AND state IN " + FINAL_STATES
                    + " ORDER BY id LIMIT :limit";

    static final String INFLIGHT_OF_CLAIM = "SELECT id FROM commands WHERE batch_id = :b AND state = 'inflight'";

    /** :unsent as in {@link #SETTLE_RELEASE}. */
    static final String RELEASE_CLAIM = """
            UPDATE commands SET state = 'pending', claimed_at = NULL, last_error = :reason,
                   unsent_attempts = unsent_attempts + :unsent
            WHERE batch_id = :b AND state = 'inflight'""";

    static final String INFLIGHT = "SELECT id FROM commands WHERE state = 'inflight'";

    static final String RELEASE_ALL_INFLIGHT = """
            UPDATE commands SET state = 'pending', claimed_at = NULL,
                   last_error = 'released at start-up: its request never completed'
            WHERE state = 'inflight'""";

    static final String PURGE_CANDIDATES = "SELECT id FROM commands WHERE final_at IS NOT NULL AND final_at < :cutoff "
            + "AND expiry_reported = 1 ORDER BY final_at LIMIT :limit";

    static final String PURGE_HISTORY = "DELETE FROM command_history WHERE command IN " + IDS;

    static final String PURGE_COMMANDS = "DELETE FROM commands WHERE id IN " + IDS;

    /** Bytes of the file's free pages: room SQLite reuses before the file grows (counted as free disk). */
    static final String FREE_BYTES =
            "SELECT f.freelist_count * p.page_size FROM pragma_freelist_count() f, pragma_page_size() p";

    static final String FREE_PAGES = "PRAGMA freelist_count";

    /**
     * Gives up to that many free pages back to the file system (auto_vacuum=INCREMENTAL). Run with JDBC's
     * executeUpdate: SQLite frees one page per step, and a plain execute steps once.
     */
    static String incrementalVacuum(int pages) {
        return "PRAGMA incremental_vacuum(" + pages + ")";
    }

    static final String AUTO_VACUUM = "PRAGMA auto_vacuum";
    static final String AUTO_VACUUM_INCREMENTAL = "PRAGMA auto_vacuum = INCREMENTAL";
    static final String VACUUM = "VACUUM";

    /**
     * Up to :limit devices last heard of before :cutoff that the outbox holds no command of (every one purged): their
     * rows go, so that the table does not keep every device ever seen. One scan of devices per purge run.
     */
    static final String FORGET_DEVICES = """
            DELETE FROM devices WHERE client_id IN (
                SELECT d.client_id FROM devices d
                WHERE d.last_seen_at < :cutoff AND d.open_count = 0
                  AND NOT EXISTS (SELECT 1 FROM commands c WHERE c.client_id = d.client_id)
                LIMIT :limit)""";

    static final String MAX_ROW_ID = "SELECT COALESCE(MAX(id), 0) FROM commands";

    static final String SCHEMA_VERSION =
            "SELECT version FROM flyway_schema_history WHERE success = 1 ORDER BY installed_rank DESC LIMIT 1";

    /** A write that changes nothing: whether a write transaction can commit now. */
    static final String WRITE_PROBE = "UPDATE devices SET last_seen_at = last_seen_at WHERE 0";

    static final String CHECKPOINT = "PRAGMA wal_checkpoint(TRUNCATE)";

    /** The checkpoint connection's: a checkpoint that would wait for a writer or reader gives up at once (busy=1). */
    static final String NO_BUSY_TIMEOUT = "PRAGMA busy_timeout = 0";

    /** Returns one row: busy (0/1), log (pages in the log), checkpointed (pages copied). */
    static final String CHECKPOINT_PASSIVE = "PRAGMA wal_checkpoint(PASSIVE)";

    /** On a write connection: checkpoint inside a commit only past this many log pages (WalCheckpointer). */
    static String writerCheckpointAt(int pages) {
        return "PRAGMA wal_autocheckpoint = " + pages;
    }

    // ---- Flyway callback (V1ChecksumRepair, on Flyway's own connection) ----

    static final String HAS_SCHEMA_HISTORY =
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'flyway_schema_history'";

    static final String REPAIR_V1_CHECKSUM =
            "UPDATE flyway_schema_history SET checksum = :first WHERE version = '1' AND checksum = :edited";

    private OutboxSql() {}
}
