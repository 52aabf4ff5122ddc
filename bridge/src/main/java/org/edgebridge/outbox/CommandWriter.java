package org.edgebridge.outbox;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Stores commands: the intake's hot path, and the one part of the outbox that runs its statements as plain JDBC
 * prepared statements ({@link CommandStatements}, prepared once on the writer's connection and run again for every
 * command). Why not Jdbi's statements here: with them (even with the statements kept prepared and the row mapper
 * written by hand) the writer spent nearly twice the CPU per command, and the intake benchmark (B1) lost about a
 * quarter of its rate (docs/BENCHMARKS.md); Jdbi's per-statement work (context, argument lookup, result handling) was
 * the difference. Everywhere else in the outbox Jdbi's fluent API is used.
 *
 * <p>Runs inside a request of the outbox's writer ({@link OutboxWriter}): the commands of one call are one
 * savepoint of the writer's transaction, committed with whatever else met them there, and each command is a savepoint
 * of its own inside it: a command whose write fails on something in it ({@link #isTheCommands}) is rolled back alone
 * and answered {@link StoreResult.Unstorable}, and the others are stored. A failure of the disk or the
 * database (SQLITE_FULL, SQLITE_IOERR ...) fails the whole call, as it would fail every command.
 */
final class CommandWriter {
    private CommandWriter() {}

    /** Stores the commands in list order; new ones beyond {@code capacity} are not stored. */
    static List<StoreResult> store(CommandStatements sql, List<NewCommand> commands, long capacity)
            throws SQLException {
        return store(sql, commands, capacity, DeviceShare.UNBOUNDED, System.currentTimeMillis());
    }

    /**
     * Stores the commands in list order; new ones beyond {@code capacity}, or beyond their device's {@code share},
     * are not stored.
     *
     * @param storedAt the writer's time in the transaction that commits them (epoch ms): the rows' {@code stored_at}
     */
    static List<StoreResult> store(
            CommandStatements sql, List<NewCommand> commands, long capacity, DeviceShare share, long storedAt)
            throws SQLException {
        List<StoreResult> out = new ArrayList<>(commands.size());
        long left = capacity;
        for (NewCommand command : commands) {
            StoreResult r = storeAlone(sql, command, left > 0, share, storedAt);
            if (r instanceof StoreResult.Stored) {
                left--;
            }
            out.add(r);
        }
        return out;
    }

    /** {@link #storeOne} in a savepoint of its own: rolled back alone when something in the command fails it. */
    private static StoreResult storeAlone(
            CommandStatements sql, NewCommand command, boolean room, DeviceShare share, long storedAt)
            throws SQLException {
        sql.savepoint.execute();
        StoreResult result;
        try {
            result = storeOne(sql, command, room, share, storedAt);
        } catch (SQLException e) {
            if (!isTheCommands(e)) {
                throw e;
            }
            result = new StoreResult.Unstorable(command, shortly(e));
        } catch (RuntimeException e) {
            result = new StoreResult.Unstorable(command, shortly(e));
        }
        if (result instanceof StoreResult.Unstorable) {
            sql.rollbackToSavepoint.execute();
        }
        sql.release.execute();
        return result;
    }

    /** The error for a device's receipt: at most 200 characters. */
    private static String shortly(Exception e) {
        String text = e.toString();
        return text.length() <= 200 ? text : text.substring(0, 200) + "…";
    }

    /**
     * Whether an error is the command's own, one that writing it again would meet again: a value too big for SQLite
     * (SQLITE_TOOBIG), a constraint, a type mismatch or a parameter out of range. Anything else (the disk, I/O, a
     * lock, a corrupt file) is the outbox's and fails every command alike.
     */
    static boolean isTheCommands(SQLException e) {
        int primary = e.getErrorCode() & 0xff;
        return primary == 18 || primary == 19 || primary == 20 || primary == 25;
    }

    private static StoreResult storeOne(
            CommandStatements sql, NewCommand command, boolean room, DeviceShare share, long storedAt)
            throws SQLException {
        Optional<CommandRecord> existing = find(sql, command);
        if (existing.isPresent()) {
            CommandRecord record = existing.get();
            return record.payloadSha256().equals(command.payloadSha256())
                    ? new StoreResult.AlreadyStored(command, record)
                    : new StoreResult.IdReused(command, record);
        }
        if (command.expiresAt().isPresent() && !command.expiresAt().get().isAfter(command.receivedAt())) {
            return new StoreResult.Expired(command); // after the lookup: a resend of a stored command gets its receipt
        }
        if (!room) {
            return new StoreResult.Full(command);
        }
        sql.deviceShare.setString(1, command.clientId());
        try (ResultSet rs = sql.deviceShare.executeQuery()) {
            if (rs.next() && !share.hasRoom(rs.getLong(1), rs.getLong(2), command.payload().length)) {
                return new StoreResult.DeviceFull(command, rs.getLong(1), rs.getLong(2));
            }
        }
        long receivedAt = command.receivedAt().toEpochMilli();
        sql.nextSequence.setString(1, command.clientId());
        sql.nextSequence.setLong(2, receivedAt);
        long sequence = single(sql.nextSequence, "last_sequence");
        PreparedStatement insert = sql.insert;
        insert.setString(1, command.clientId());
        insert.setString(2, command.commandId());
        insert.setLong(3, sequence);
        insert.setString(4, command.topic());
        insert.setString(5, command.type());
        insert.setBytes(6, command.payload());
        insert.setString(7, command.payloadSha256());
        insert.setLong(8, receivedAt);
        if (command.expiresAt().isPresent()) {
            insert.setLong(9, command.expiresAt().get().toEpochMilli());
        } else {
            insert.setNull(9, Types.INTEGER);
        }
        insert.setLong(10, storedAt);
        long id = single(insert, "id");
        CommandRecord record = new CommandRecord(
                id,
                command.clientId(),
                command.commandId(),
                sequence,
                command.topic(),
                command.type(),
                command.payloadSha256(),
                command.receivedAt(),
                CommandState.PENDING,
                0,
                0,
                Instant.EPOCH,
                null,
                null,
                null,
                null,
                Optional.empty());
        return new StoreResult.Stored(command, record);
    }

    private static Optional<CommandRecord> find(CommandStatements sql, NewCommand command) throws SQLException {
        sql.find.setString(1, command.clientId());
        sql.find.setString(2, command.commandId());
        try (ResultSet rs = sql.find.executeQuery()) {
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
}
