package org.edgebridge.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The intake's three statements ({@link OutboxSql#FIND}, {@link OutboxSql#NEXT_SEQUENCE},
 * {@link OutboxSql#INSERT}), prepared once on the writer's connection and run again for every command
 * ({@link CommandWriter} says why plain JDBC). Closed with the connection. Not thread-safe: the writer thread's.
 */
final class CommandStatements implements AutoCloseable {
    final PreparedStatement find;
    final PreparedStatement nextSequence;
    final PreparedStatement insert;

    CommandStatements(Connection connection) throws SQLException {
        this.find = connection.prepareStatement(OutboxSql.FIND);
        this.nextSequence = connection.prepareStatement(OutboxSql.NEXT_SEQUENCE);
        this.insert = connection.prepareStatement(OutboxSql.INSERT);
    }

    @Override
    public void close() {
        for (PreparedStatement s : new PreparedStatement[] {find, nextSequence, insert}) {
            try {
                s.close();
            } catch (SQLException ignored) {
                // closed with its connection either way
            }
        }
    }
}
