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
        if (handle == null) {
            handle = jdbi.open();
        }
        try {
            return handle.createQuery(OutboxSql.CHECKPOINT_PASSIVE)
                    .map((rs, ctx) -> new Checkpoint(rs.getLong("log"), rs.getLong("checkpointed"))).one();
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
