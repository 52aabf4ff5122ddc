package org.edgebridge.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The statements that begin, end and divide the writer's transactions, prepared once: through Jdbi each was parsed
 * and bound again at every use, five or more per transaction (a profile of B3 showed Jdbi's SQL parsing on the
 * writer thread). Used on the writer thread only ({@link OutboxWriter}).
 */
final class TransactionStatements implements AutoCloseable {
    final PreparedStatement begin;
    final PreparedStatement commit;
    final PreparedStatement savepoint;
    final PreparedStatement release;
    final PreparedStatement rollbackToSavepoint;

    TransactionStatements(Connection c) throws SQLException {
        begin = c.prepareStatement(OutboxSql.BEGIN_IMMEDIATE);
        commit = c.prepareStatement(OutboxSql.COMMIT);
        savepoint = c.prepareStatement(OutboxSql.SAVEPOINT);
        release = c.prepareStatement(OutboxSql.RELEASE_SAVEPOINT);
        rollbackToSavepoint = c.prepareStatement(OutboxSql.ROLLBACK_TO_SAVEPOINT);
    }

    @Override
    public void close() {
        for (PreparedStatement s : new PreparedStatement[] {begin, commit, savepoint, release, rollbackToSavepoint}) {
            try {
                s.close();
            } catch (SQLException ignored) {
                // closed with its connection either way
            }
        }
    }
}
