package org.edgebridge.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.concurrent.locks.Lock;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * Stores commands: the intake's hot path, and the one part of the outbox that runs its statements as plain JDBC
 * prepared statements, on the connection of one long-lived Jdbi {@link Handle}. Each of its three statements
 * ({@link OutboxSql#WRITER_FIND}, {@link OutboxSql#NEXT_SEQUENCE}, {@link OutboxSql#INSERT}) is prepared once and
 * run again for every command. Why not Jdbi's statements here: with them (even with the statements kept prepared
 * and the row mapper written by hand) the writer spent 120–160 µs of CPU per command against 70–95 µs, and the
 * intake benchmark (B1) lost about a quarter of its rate; Jdbi's per-statement work (context, argument lookup,
 * result handling) was the difference. Everywhere else in the outbox Jdbi's fluent API is used.
 *
 * <p>A group of commands is one transaction, begun with an explicit {@code BEGIN IMMEDIATE}. After a failed
 * transaction the handle is closed and the next call opens a new one. Synchronized: one writer at a time.
 */
final class CommandWriter implements AutoCloseable {
    private final Jdbi jdbi;
    private final Lock writes;
    private Handle handle;
    private PreparedStatement find;
    private PreparedStatement nextSequence;
    private PreparedStatement insert;

    /** @param writes the outbox's one write lock, held from {@code BEGIN IMMEDIATE} to {@code COMMIT} */
    CommandWriter(Jdbi jdbi, Lock writes) {
        this.jdbi = jdbi;
        this.writes = writes;
    }

    synchronized List<StoreResult> store(Supplier<List<NewCommand>> batch, long capacity) {
        writes.lock();
        try {
            return storeInOneTransaction(batch.get(), capacity);
        } finally {
            writes.unlock();
        }
    }

    private List<StoreResult> storeInOneTransaction(List<NewCommand> commands, long capacity) {
        try {
            if (handle == null) {
                open();
            }
            // explicit, not Jdbi's transaction (setAutoCommit(false)): sqlite-jdbc would begin the next transaction
            // right after each commit and keep the write lock from every other writer
            handle.execute(OutboxSql.BEGIN_IMMEDIATE);
            List<StoreResult> out = new ArrayList<>(commands.size());
            long left = capacity;
            for (NewCommand command : commands) {
                StoreResult r = storeOne(command, left > 0);
                if (r instanceof StoreResult.Stored) {
                    left--;
                }
                out.add(r);
            }
            handle.execute(OutboxSql.COMMIT);
            return out;
        } catch (SQLException | RuntimeException e) {
            rollbackAndClose();
            throw e instanceof RuntimeException re ? re
                    : new UnableToExecuteStatementException("storing commands failed: " + e.getMessage(), e, null);
        }
    }

    private void open() throws SQLException {
        handle = OutboxDatabase.openWriter(jdbi);
        Connection connection = handle.getConnection();
        find = connection.prepareStatement(OutboxSql.WRITER_FIND);
        nextSequence = connection.prepareStatement(OutboxSql.NEXT_SEQUENCE);
        insert = connection.prepareStatement(OutboxSql.INSERT);
    }

    private StoreResult storeOne(NewCommand command, boolean room) throws SQLException {
        Optional<CommandRecord> existing = find(command);
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
        long sequence = single(nextSequence, "last_sequence");
        insert.setString(1, command.clientId());
        insert.setString(2, command.commandId());
        insert.setLong(3, sequence);
        insert.setString(4, command.topic());
        insert.setString(5, command.type());
        insert.setBytes(6, command.payload());
        insert.setString(7, command.payloadSha256());
        insert.setLong(8, receivedAt);
        long id = single(insert, "id");
        CommandRecord record = new CommandRecord(id, command.clientId(), command.commandId(), sequence, command.topic(),
                command.type(), command.payloadSha256(), command.receivedAt(), CommandState.PENDING, 0, 0,
                Instant.EPOCH, null, null, null, null, Optional.empty());
        return new StoreResult.Stored(command, record);
    }

    private Optional<CommandRecord> find(NewCommand command) throws SQLException {
        find.setString(1, command.clientId());
        find.setString(2, command.commandId());
        try (ResultSet rs = find.executeQuery()) {
            return rs.next() ? Optional.of(OutboxRows.commandRecord(rs, null)) : Optional.empty();
        }
    }

    /** Runs a statement that returns one row ({@code RETURNING}) and reads {@code column} of it. */
    private static long single(PreparedStatement statement, String column) throws SQLException {
        try (ResultSet rs = statement.executeQuery()) {
            if (!rs.next()) {
                throw new SQLException("no row returned for " + column);
            }
            return rs.getLong(column);
        }
    }

    private void rollbackAndClose() {
        if (handle != null) {
            try {
                handle.execute(OutboxSql.ROLLBACK);
            } catch (RuntimeException ignored) {
                // the handle is reopened on the next call
            }
        }
        close();
    }

    /** Closes the statements with the handle's connection. */
    @Override
    public synchronized void close() {
        try {
            if (handle != null) {
                handle.close();
            }
        } catch (RuntimeException ignored) {
            // closing a broken connection
        } finally {
            handle = null;
            find = null;
            nextSequence = null;
            insert = null;
        }
    }
}
