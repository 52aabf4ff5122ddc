package org.edgebridge.outbox;

/**
 * The intake's SQL ({@link CommandWriter}): each command's savepoint, its device's share and sequence, and its insert.
 * A resend is looked up with {@link OutboxSql#FIND}. Conventions: {@link OutboxSql}.
 */
final class IntakeSql {
    /** One command of the intake's request ({@link CommandWriter}), inside the request's savepoint. */
    static final String SAVEPOINT_COMMAND = "SAVEPOINT command";

    static final String RELEASE_COMMAND = "RELEASE command";

    static final String ROLLBACK_TO_COMMAND = "ROLLBACK TO command";

    /** The device's next sequence (its row made with its first command); :at the command's receipt time. */
    static final String NEXT_SEQUENCE = """
            INSERT INTO devices (client_id, last_sequence, first_seen_at, last_seen_at) VALUES (:c, 1, :at, :at)
            ON CONFLICT (client_id) DO UPDATE SET last_sequence = last_sequence + 1, last_seen_at = :at
            RETURNING last_sequence""";

    /** The device's open commands and their payload bytes (kept by V7__device_share.sql's triggers). */
    static final String DEVICE_SHARE = "SELECT open_count, open_bytes FROM devices WHERE client_id = :c";

    /**
     * A new command, pending; :expires NULL: never; :stored the writer's time in the transaction that commits it (the
     * timeline's "stored").
     */
    static final String INSERT = """
            INSERT INTO commands (client_id, command_id, sequence, topic, type, payload, payload_sha256, received_at, state,
                                  expires_at, stored_at)
            VALUES (:c, :id, :sequence, :topic, :type, :payload, :sha, :received, 'pending', :expires, :stored)
            RETURNING id""";

    private IntakeSql() {}
}
