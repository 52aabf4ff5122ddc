package org.edgebridge.outbox;

import java.sql.SQLException;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jspecify.annotations.Nullable;

/**
 * The connection {@link WalCheckpointer}'s passive checkpoints run on, kept between checkpoints and opened again
 * after a failure. Thread-safe (one checkpoint at a time).
 */
final class CheckpointConnection implements AutoCloseable {
    /** What one checkpoint found: pages in the write-ahead log, and how many of them are in the database file now. */
    record Checkpoint(long logPages, long pagesCopied) {}

    private final Jdbi jdbi;
    private @Nullable Handle handle; // guarded by this
    private @Nullable NamedStatements statements; // guarded by this

    CheckpointConnection(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    /**
     * Copies what it can of the write-ahead log into the database file without waiting for, or blocking, a writer
     * (SQLite's PASSIVE checkpoint).
     */
    synchronized Checkpoint checkpointPassive() {
        return run(UpkeepSql.CHECKPOINT_PASSIVE).checkpoint();
    }

    /**
     * Copies the log into the database file and cuts the log file to zero bytes (SQLite's TRUNCATE checkpoint), only
     * if that needs no waiting: this connection has no busy timeout, so a writer or a reader of the log makes it give
     * up at once instead of holding the write lock while it waits.
     *
     * @return whether the log file was cut
     */
    synchronized boolean truncateIfFree() {
        return !run(UpkeepSql.CHECKPOINT).busy();
    }

    private record Result(boolean busy, Checkpoint checkpoint) {}

    private Result run(String checkpoint) {
        try {
            if (statements == null) {
                handle = jdbi.open();
                statements = new NamedStatements(handle.getConnection());
                statements.get(UpkeepSql.NO_BUSY_TIMEOUT).run();
            }
            return statements
                    .get(checkpoint)
                    .one(rs -> new Result(
                            rs.getInt("busy") != 0, new Checkpoint(rs.getLong("log"), rs.getLong("checkpointed"))));
        } catch (SQLException | RuntimeException e) {
            close();
            throw e instanceof RuntimeException re
                    ? re
                    : new IllegalStateException("outbox checkpoint failed: " + e.getMessage(), e);
        }
    }

    @Override
    public synchronized void close() {
        if (statements != null) {
            statements.close();
            statements = null;
        }
        if (handle != null) {
            try {
                handle.close();
            } catch (RuntimeException e) {
                // gone either way; the next checkpoint opens a new one
            }
            handle = null;
        }
    }
}
