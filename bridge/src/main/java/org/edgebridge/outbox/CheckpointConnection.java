package org.edgebridge.outbox;

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

    CheckpointConnection(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    /**
     * Copies what it can of the write-ahead log into the database file without waiting for, or blocking, a writer
     * (SQLite's PASSIVE checkpoint).
     */
    synchronized Checkpoint checkpointPassive() {
        return run(OutboxSql.CHECKPOINT_PASSIVE).checkpoint();
    }

    /**
     * Copies the log into the database file and cuts the log file to zero bytes (SQLite's TRUNCATE checkpoint), only
     * if that needs no waiting: this connection has no busy timeout, so a writer or a reader of the log makes it give
     * up at once instead of holding the write lock while it waits.
     *
     * @return whether the log file was cut
     */
    synchronized boolean truncateIfFree() {
        return !run(OutboxSql.CHECKPOINT).busy();
    }

    private record Result(boolean busy, Checkpoint checkpoint) {}

    private Result run(String checkpoint) {
        if (handle == null) {
            Handle opened = jdbi.open();
            try {
                opened.execute(OutboxSql.NO_BUSY_TIMEOUT);
            } catch (RuntimeException e) {
                opened.close();
                throw e;
            }
            handle = opened;
        }
        try {
            return handle.createQuery(checkpoint)
                    .map((rs, ctx) -> new Result(
                            rs.getInt("busy") != 0, new Checkpoint(rs.getLong("log"), rs.getLong("checkpointed"))))
                    .one();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    @Override
    public synchronized void close() {
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
