package org.edgebridge.outbox;

import java.sql.SQLException;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Reads outside the writer: each on a connection opened for the call, with statements of its own
 * ({@link NamedStatements}), both closed before it returns (WAL: a read never waits for the writer). Thread-safe.
 */
final class OutboxReading {
    private final Jdbi jdbi;

    OutboxReading(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    /** Runs {@code read} on a connection of its own. */
    <R> R read(OutboxWriter.Work<R> read) {
        try (Handle handle = jdbi.open();
                NamedStatements sql = new NamedStatements(handle.getConnection())) {
            return read.run(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("outbox read failed: " + e.getMessage(), e);
        }
    }
}
