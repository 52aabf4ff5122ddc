package org.edgebridge.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Stores commands on one long-lived connection with its statements prepared once: the intake's hot path.
 * Compiling three statements per command and opening a connection per transaction was what the writer thread
 * spent its time on (measured with jstack samples during the benchmark). Synchronized: one writer at a time.
 */
final class CommandWriter implements AutoCloseable {
    private final DataSource dataSource;
    private Connection connection;
    private PreparedStatement find;
    private PreparedStatement nextSequence;
    private PreparedStatement insert;
    private PreparedStatement begin;
    private PreparedStatement commit;
    private PreparedStatement rollback;

    CommandWriter(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    synchronized List<StoreResult> store(List<NewCommand> commands, long capacity) throws SQLException {
        if (connection == null) {
            open();
        }
        try {
            // explicit, not setAutoCommit(false): sqlite-jdbc would begin the next transaction right after each
            // commit and keep the write lock from every other writer
            begin.execute();
            List<StoreResult> out = new ArrayList<>(commands.size());
            long left = capacity;
            for (NewCommand command : commands) {
                StoreResult r = storeOne(command, left > 0);
                if (r instanceof StoreResult.Stored) {
                    left--;
                }
                out.add(r);
            }
            commit.execute();
            return out;
        } catch (SQLException | RuntimeException e) {
            try {
                rollback.execute();
            } catch (SQLException ignored) {
                // the connection is reopened below
            }
            close();
            throw e;
        }
    }

    private void open() throws SQLException {
        connection = dataSource.getConnection();
        begin = connection.prepareStatement("BEGIN IMMEDIATE");
        commit = connection.prepareStatement("COMMIT");
        rollback = connection.prepareStatement("ROLLBACK");
        find = connection.prepareStatement(OutboxSql.FIND.replace(":c", "?").replace(":id", "?"));
        nextSequence = connection.prepareStatement(OutboxSql.NEXT_SEQUENCE.replace(":c", "?").replace(":t", "?"));
        insert = connection.prepareStatement(OutboxSql.INSERT
                .replace(":clientId", "?").replace(":commandId", "?").replace(":sequence", "?").replace(":topic", "?")
                .replace(":type", "?").replace(":payload", "?").replace(":sha", "?").replace(":receivedAt", "?"));
    }

    private StoreResult storeOne(NewCommand command, boolean room) throws SQLException {
        find.setString(1, command.clientId());
        find.setString(2, command.commandId());
        Optional<CommandRecord> existing;
        try (ResultSet rs = find.executeQuery()) {
            existing = rs.next() ? Optional.of(Outbox.mapRecord(rs, null)) : Optional.empty();
        }
        if (existing.isPresent()) {
            CommandRecord record = existing.get();
            return record.payloadSha256().equals(command.payloadSha256())
                    ? new StoreResult.AlreadyStored(command, record)
                    : new StoreResult.IdReused(command, record);
        }
        if (!room) {
            return new StoreResult.Full(command);
        }
        long receivedAt = command.receivedAt().toEpochMilli();
        nextSequence.setString(1, command.clientId());
        nextSequence.setLong(2, receivedAt);
        nextSequence.setLong(3, receivedAt);
        nextSequence.setLong(4, receivedAt);
        long sequence;
        try (ResultSet rs = nextSequence.executeQuery()) {
            rs.next();
            sequence = rs.getLong(1);
        }
        insert.setString(1, command.clientId());
        insert.setString(2, command.commandId());
        insert.setLong(3, sequence);
        insert.setString(4, command.topic());
        insert.setString(5, command.type());
        insert.setBytes(6, command.payload());
        insert.setString(7, command.payloadSha256());
        insert.setLong(8, receivedAt);
        long id;
        try (ResultSet rs = insert.executeQuery()) {
            rs.next();
            id = rs.getLong(1);
        }
        CommandRecord record = new CommandRecord(id, command.clientId(), command.commandId(), sequence, command.topic(),
                command.type(), command.payloadSha256(), command.receivedAt(), CommandState.PENDING, 0, 0,
                Instant.EPOCH, null, null, null, null, Optional.empty());
        return new StoreResult.Stored(command, record);
    }

    @Override
    public synchronized void close() {
        try {
            if (connection != null) {
                connection.close();
            }
        } catch (SQLException ignored) {
            // closing a broken connection
        } finally {
            connection = null;
        }
    }
}
