package org.edgebridge.outbox;

import java.sql.SQLException;
import java.util.Objects;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jspecify.annotations.Nullable;

/**
 * The write connection of {@link OutboxWriter} and the statements kept on it: Jdbi's ({@link KeptStatements}), the
 * claim's and the intake's plain JDBC ones, and those that begin, end and divide a transaction. Opened by the first
 * transaction that needs it, closed after a failed one (the next opens a new one) and by the writer's stop. Used on
 * the writer thread only.
 */
final class WriterConnection {
    private final Jdbi jdbi;
    private @Nullable Handle handle;
    private @Nullable NamedStatements statements;
    private @Nullable CommandStatements commands;
    private @Nullable TransactionStatements transaction;

    WriterConnection(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    /** Opens the connection and prepares its statements if it is closed. */
    void open() throws SQLException {
        if (handle == null) {
            handle = OutboxDatabase.openWriter(jdbi);
            KeptStatements.keepOn(handle);
            statements = new NamedStatements(handle.getConnection());
            commands = new CommandStatements(handle.getConnection());
            transaction = new TransactionStatements(handle.getConnection());
        }
    }

    boolean isOpen() {
        return handle != null;
    }

    /** The connection, and below its statements: only while open ({@link #isOpen()}, after {@link #open()}). */
    Handle handle() {
        return Objects.requireNonNull(handle);
    }

    NamedStatements statements() {
        return Objects.requireNonNull(statements);
    }

    CommandStatements commands() {
        return Objects.requireNonNull(commands);
    }

    TransactionStatements transaction() {
        return Objects.requireNonNull(transaction);
    }

    /** Rolls back whatever transaction is open and closes the connection. */
    void rollbackAndClose() {
        if (handle != null) {
            try {
                handle.execute(OutboxSql.ROLLBACK);
            } catch (RuntimeException ignored) {
                // no transaction open, or the connection is broken: it is closed next
            }
        }
        close();
    }

    void close() {
        if (transaction != null) {
            transaction.close();
            transaction = null;
        }
        if (commands != null) {
            commands.close();
            commands = null;
        }
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
