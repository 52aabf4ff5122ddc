package org.edgebridge.outbox;

/** The outbox's SQL, in one place so that a test can check every hot statement's query plan. */
final class OutboxSql {
    static final String OPEN_STATES = "('pending', 'inflight', 'parked')";
    static final String FINAL_STATES = "('accepted', 'duplicate', 'rejected')";
    static final String RECORD_COLUMNS = "id, client_id, command_id, sequence, topic, type, payload_sha256, received_at, "
            + "state, attempts, retry_laters, not_before, last_error, code, message, result, final_at";

    static final String FIND = "SELECT " + RECORD_COLUMNS + " FROM commands WHERE client_id = :c AND command_id = :id";

    static final String NEXT_SEQUENCE = """
            INSERT INTO devices (client_id, last_sequence, first_seen_at, last_seen_at) VALUES (:c, 1, :t, :t)
            ON CONFLICT (client_id) DO UPDATE SET last_sequence = last_sequence + 1, last_seen_at = :t
            RETURNING last_sequence""";

    static final String INSERT = """
            INSERT INTO commands (client_id, command_id, sequence, topic, type, payload, payload_sha256, received_at, state)
            VALUES (:clientId, :commandId, :sequence, :topic, :type, :payload, :sha, :receivedAt, 'pending')
            RETURNING id""";

    /**
     * Per device, the row of its lowest open sequence, if that row is pending and due. CROSS JOIN fixes the
     * join order: one index seek per device, whatever the backlog (a device whose head waits costs one seek,
     * not a scan of its rows).
     */
    static final String CLAIM_HEADS = """
            SELECT c.id, c.client_id, c.sequence FROM devices d
            CROSS JOIN commands c ON c.id = (SELECT o.id FROM commands o INDEXED BY commands_open
                                             WHERE o.client_id = d.client_id AND o.state IN """ + OPEN_STATES + """

                                             ORDER BY o.sequence LIMIT 1)
            WHERE c.state = 'pending' AND c.not_before <= :now AND c.id <= :maxId
            ORDER BY c.id LIMIT :limit""";

    /**
     * A device's open rows from its head on, in sequence order: their sizes, not their payloads (length() of a BLOB
     * reads the record header, not the payload's pages), so that the claim reads only the payloads that fit.
     */
    static final String CLAIM_RUN = """
            SELECT id, command_id, sequence, topic, type, length(payload), payload_sha256, received_at, state, not_before, attempts
            FROM commands INDEXED BY commands_open WHERE client_id = :c AND sequence >= :head AND state IN """ + OPEN_STATES + """

            ORDER BY sequence LIMIT :limit""";

    /** The payloads of the rows a claim took. */
    static final String CLAIM_PAYLOADS = "SELECT id, payload FROM commands WHERE id IN (<ids>)";

    static final String COUNT_OPEN = "SELECT COUNT(*) FROM commands WHERE state IN " + OPEN_STATES;

    static final String UNPUBLISHED = "SELECT " + RECORD_COLUMNS + " FROM commands INDEXED BY commands_unpublished"
            + " WHERE receipt_published = 0 AND state IN " + FINAL_STATES + " ORDER BY id LIMIT :limit";

    static final String PURGE_CANDIDATES = "SELECT id FROM commands WHERE final_at IS NOT NULL AND final_at < :cutoff "
            + "ORDER BY final_at LIMIT :limit";

    static final String OLDEST_OPEN = "SELECT MIN(received_at) FROM commands WHERE state IN " + OPEN_STATES;

    private OutboxSql() {}
}
