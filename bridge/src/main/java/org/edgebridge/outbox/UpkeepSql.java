package org.edgebridge.outbox;

/**
 * The SQL that keeps the outbox file: retention ({@link RetentionPurger}), free pages and auto_vacuum ({@link
 * IncrementalVacuum}, {@link Outbox#giveBackFreePages}), write-ahead log checkpoints ({@link WalCheckpointer}), probes,
 * and the repair of V1's recorded checksum on Flyway's connection ({@link V1ChecksumRepair}). Conventions: {@link
 * OutboxSql}.
 */
final class UpkeepSql {
    static final String PURGE_CANDIDATES = "SELECT id FROM commands WHERE final_at IS NOT NULL AND final_at < :cutoff "
            + "AND expiry_reported = 1 ORDER BY final_at LIMIT :limit";

    static final String PURGE_HISTORY = "DELETE FROM command_history WHERE command IN " + OutboxSql.IDS;

    static final String PURGE_COMMANDS = "DELETE FROM commands WHERE id IN " + OutboxSql.IDS;

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

    static final String HAS_SCHEMA_HISTORY =
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'flyway_schema_history'";

    static final String REPAIR_V1_CHECKSUM =
            "UPDATE flyway_schema_history SET checksum = :first WHERE version = '1' AND checksum = :edited";

    private UpkeepSql() {}
}
