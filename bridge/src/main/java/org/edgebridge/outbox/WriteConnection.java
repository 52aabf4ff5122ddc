package org.edgebridge.outbox;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;

/**
 * The connection of every write transaction but the intake's (the claim, the settle, the admin's, the purge's), and
 * the marks of published receipts that ride the next of them.
 *
 * <p>Opened on the first write and kept, as the intake writer keeps its own: no SQLite connection opened per call
 * (the file opened, the PRAGMAs run, the schema parsed by the first statement), three of them per request before
 * (issue 16). Its Jdbi statements are kept ({@link KeptStatements}), and the claim's plain JDBC ones ({@link
 * #statements}). Used only while the outbox's write lock is held, which makes one connection safe for every thread;
 * a failed transaction closes it, and the next write opens a new one.
 */
final class WriteConnection {
    private final Jdbi jdbi;
    private final ReentrantLock writes;
    private Handle handle; // guarded by writes
    private NamedStatements statements; // guarded by writes
    /**
     * Rows whose final receipt was handed to the broker and not yet marked so: marked in the next write transaction
     * (the next claim or settle), not in one of their own, which was a third commit per request (issue 16). A crash
     * before that transaction loses only the marks: those receipts are published again, flagged replayed.
     */
    private final List<Long> publishedUnmarked = new ArrayList<>(); // guarded by itself

    /** @param writes the outbox's write lock, which the intake writer takes too */
    WriteConnection(Jdbi jdbi, ReentrantLock writes) {
        this.jdbi = jdbi;
        this.writes = writes;
    }

    /** A write transaction under the write lock; the marks waiting are committed in it first. */
    <R> R write(HandleCallback<R, RuntimeException> transaction) {
        writes.lock();
        try {
            if (handle == null) {
                handle = OutboxDatabase.openWriter(jdbi);
                KeptStatements.keepOn(handle);
                statements = new NamedStatements(handle.getConnection());
            }
            List<Long> marks = takeMarks();
            try {
                return handle.inTransaction(h -> {
                    if (!marks.isEmpty()) {
                        h.createUpdate(OutboxSql.MARK_PUBLISHED).bind("ids", OutboxSql.idList(marks)).execute();
                    }
                    return transaction.withHandle(h);
                });
            } catch (RuntimeException e) {
                synchronized (publishedUnmarked) {
                    publishedUnmarked.addAll(0, marks);
                }
                closeConnection();
                throw e;
            }
        } finally {
            writes.unlock();
        }
    }

    /** The plain JDBC statements of this connection: only inside {@link #write}. */
    NamedStatements statements() {
        if (!writes.isHeldByCurrentThread()) {
            throw new IllegalStateException("the write connection's statements are used inside a write transaction only");
        }
        return statements;
    }

    /** Records that these rows' final receipts were handed to the broker: committed with the next write. */
    void markPublished(List<Long> ids) {
        synchronized (publishedUnmarked) {
            publishedUnmarked.addAll(ids);
        }
    }

    /** Commits the marks that wait for a write transaction, in one of their own. */
    void flushMarks() {
        boolean waiting;
        synchronized (publishedUnmarked) {
            waiting = !publishedUnmarked.isEmpty();
        }
        if (waiting) {
            write(h -> null);
        }
    }

    private List<Long> takeMarks() {
        synchronized (publishedUnmarked) {
            if (publishedUnmarked.isEmpty()) {
                return List.of();
            }
            List<Long> marks = List.copyOf(publishedUnmarked);
            publishedUnmarked.clear();
            return marks;
        }
    }

    /** Commits the marks left, then closes the connection; the next write opens a new one. */
    void close() {
        try {
            flushMarks();
        } catch (RuntimeException e) {
            // those receipts are published again, flagged replayed, after the next start
        }
        writes.lock();
        try {
            closeConnection();
        } finally {
            writes.unlock();
        }
    }

    private void closeConnection() {
        if (statements != null) {
            statements.close();
            statements = null;
        }
        Handle h = handle;
        handle = null;
        if (h != null) {
            try {
                h.close();
            } catch (RuntimeException e) {
                // the connection is gone either way; the next write opens a new one
            }
        }
    }
}
