package org.edgebridge.outbox;

/**
 * The forwarder's SQL: the claim ({@link Claimer}), the settle and the releases ({@link Settler}), expiry
 * ({@link Expiries}) and the finals whose receipts are to be published again ({@link Outbox#unpublishedFinals}).
 * Conventions: {@link OutboxSql}.
 */
final class ForwarderSql {
    /**
     * Per device, the row of its lowest open sequence, if that row is pending and due, and central was told of every
     * command of the device that expired here ({@link #UNREPORTED_EXPIRIES}). Only devices with open commands are
     * visited ({@code devices_with_open}, kept by V7__device_share.sql's triggers), not every device ever seen. CROSS
     * JOIN fixes the join order: one index seek per such device, whatever the backlog (a device whose head waits costs
     * one seek, not a scan of its rows). NOT INDEXED makes the head row a lookup by its id: left to itself, SQLite 3's
     * planner seeks {@code commands_state} (state, id) there and then the row as well.
     */
    static final String CLAIM_HEADS = """
            SELECT c.id, c.client_id, c.sequence FROM devices d INDEXED BY devices_with_open
            CROSS JOIN commands c NOT INDEXED ON c.id = (SELECT o.id FROM commands o INDEXED BY commands_open
                                             WHERE o.client_id = d.client_id AND o.state IN """ + OutboxSql.OPEN_STATES + """

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
            FROM commands INDEXED BY commands_open WHERE client_id = :c AND sequence >= :head AND state IN """ + OutboxSql.OPEN_STATES + """

            ORDER BY sequence LIMIT :limit""";

    /** The payloads of the rows a claim took. */
    static final String CLAIM_PAYLOADS = "SELECT id, payload FROM commands WHERE id IN " + OutboxSql.IDS;

    static final String CLAIM_MARK = """
            UPDATE commands SET state = 'inflight', claimed_at = :now, attempts = attempts + 1, batch_id = :b
            WHERE id = :id""";

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

    static final String MARK_EXPIRY_REPORTED = "UPDATE commands SET expiry_reported = 1 WHERE id IN " + OutboxSql.IDS;

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

    /**
     * Devices after {@code :after} (by client id) with final receipts committed but never handed to the broker: one
     * seek per device with a row, not a scan of the rows (a device that never reads may have a million).
     */
    static final String UNPUBLISHED_DEVICES = """
            SELECT d.client_id FROM devices d
            WHERE d.client_id > :after AND EXISTS (SELECT 1 FROM commands c INDEXED BY commands_unpublished_device
                         WHERE c.client_id = d.client_id AND c.receipt_published = 0 AND c.state IN """ + OutboxSql.FINAL_STATES + """
            )
            ORDER BY d.client_id LIMIT :limit""";

    /** One device's oldest final receipts committed but never handed to the broker. */
    static final String UNPUBLISHED =
            "SELECT " + OutboxSql.RECORD_COLUMNS + " FROM commands INDEXED BY commands_unpublished_device"
                    + " WHERE client_id = :c AND receipt_published = 0 AND state IN " + OutboxSql.FINAL_STATES
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

    static final String MAX_ROW_ID = "SELECT COALESCE(MAX(id), 0) FROM commands";

    private ForwarderSql() {}
}
