package org.edgebridge.outbox;

import java.sql.SQLException;
import java.util.Objects;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jspecify.annotations.Nullable;

/**
 * The write connection of {@link OutboxWriter} and its one set of kept statements ({@link NamedStatements}): every
 * statement the writer runs, the intake's, the forwarder's, the admin's and those that begin, end and divide a
 * transaction. Opened by the first transaction that needs it, closed after a failed one (the next opens a new one)
 * and by the writer's stop. Used on the writer thread only.
 */
final class WriterConnection {
    private final Jdbi jdbi;
    private @Nullable Handle handle;
    private @Nullable NamedStatements statements;

    WriterConnection(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    /** Opens the connection if it is closed. */
    void open() throws SQLException {
        if (handle == null) {
            handle = OutboxDatabase.openWriter(jdbi);
            statements = new NamedStatements(handle.getConnection());
        }
    }

    boolean isOpen() {
        return handle != null;
    }

    /** The connection's kept statements: only while open ({@link #isOpen()}, after {@link #open()}). */
    NamedStatements statements() {
        return Objects.requireNonNull(statements);
    }

    /** Rolls back whatever transaction is open and closes the connection. */
    void rollbackAndClose() {
        if (statements != null) {
            try {
                statements.get(OutboxSql.ROLLBACK).run();
            } catch (SQLException | RuntimeException ignored) {
                // no transaction open, or the connection is broken: it is closed next
            }
        }
        close();
    }

    void close() {
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
                // the connection is gone either way; the next transaction opens a new one
            }
        }
    }
}
