package org.edgebridge.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The intake's three statements (and its savepoint's) ({@link OutboxSql#FIND}, {@link OutboxSql#NEXT_SEQUENCE},
 * {@link OutboxSql#INSERT}), prepared once on the writer's connection and run again for every command
 * ({@link CommandWriter} says why plain JDBC). Closed with the connection. Not thread-safe: the writer thread's.
 */
final class CommandStatements implements AutoCloseable {
    final PreparedStatement find;
    final PreparedStatement nextSequence;
    final PreparedStatement insert;
    /** The device's open commands and their bytes ({@link OutboxSql#DEVICE_SHARE}). */
    final PreparedStatement deviceShare;
    /** Each command's own savepoint ({@link CommandWriter}): one that fails is rolled back alone. */
    final PreparedStatement savepoint;

    final PreparedStatement release;
    final PreparedStatement rollbackToSavepoint;

    CommandStatements(Connection connection) throws SQLException {
        this.find = connection.prepareStatement(OutboxSql.FIND);
        this.nextSequence = connection.prepareStatement(OutboxSql.NEXT_SEQUENCE);
        this.insert = connection.prepareStatement(OutboxSql.INSERT);
        this.deviceShare = connection.prepareStatement(OutboxSql.DEVICE_SHARE);
        this.savepoint = connection.prepareStatement(OutboxSql.SAVEPOINT_COMMAND);
        this.release = connection.prepareStatement(OutboxSql.RELEASE_COMMAND);
        this.rollbackToSavepoint = connection.prepareStatement(OutboxSql.ROLLBACK_TO_COMMAND);
    }

    @Override
    public void close() {
        for (PreparedStatement s : new PreparedStatement[] {
            find, nextSequence, insert, deviceShare, savepoint, release, rollbackToSavepoint
        }) {
            try {
                s.close();
            } catch (SQLException ignored) {
                // closed with its connection either way
            }
        }
    }
}
