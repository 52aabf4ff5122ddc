package org.edgebridge.outbox;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Stores commands: the intake's hot path, on the writer connection's kept statements ({@link NamedStatements}, the
 * SQL in {@link IntakeSql}), each prepared once and run again for every command.
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
    static List<StoreResult> store(NamedStatements sql, List<NewCommand> commands, long capacity) throws SQLException {
        return store(sql, commands, capacity, DeviceShare.UNBOUNDED, System.currentTimeMillis());
    }

    /**
     * Stores the commands in list order; new ones beyond {@code capacity}, or beyond their device's {@code share}, are
     * not stored.
     *
     * @param storedAt the writer's time in the transaction that commits them (epoch ms): the rows' {@code stored_at}
     */
    static List<StoreResult> store(
            NamedStatements sql, List<NewCommand> commands, long capacity, DeviceShare share, long storedAt)
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
            NamedStatements sql, NewCommand command, boolean room, DeviceShare share, long storedAt)
            throws SQLException {
        sql.get(IntakeSql.SAVEPOINT_COMMAND).run();
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
            sql.get(IntakeSql.ROLLBACK_TO_COMMAND).run();
        }
        sql.get(IntakeSql.RELEASE_COMMAND).run();
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
            NamedStatements sql, NewCommand command, boolean room, DeviceShare share, long storedAt)
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
        Optional<DeviceFill> fill =
                sql.get(IntakeSql.DEVICE_SHARE).set("c", command.clientId()).first(DeviceFill::read);
        if (fill.isPresent() && !share.hasRoom(fill.get().commands(), fill.get().bytes(), command.payload().length)) {
            return new StoreResult.DeviceFull(
                    command, fill.get().commands(), fill.get().bytes());
        }
        long receivedAt = command.receivedAt().toEpochMilli();
        long sequence = sql.get(IntakeSql.NEXT_SEQUENCE)
                .set("c", command.clientId())
                .set("at", receivedAt)
                .one(rs -> rs.getLong("last_sequence"));
        long id = sql.get(IntakeSql.INSERT)
                .set("c", command.clientId())
                .set("id", command.commandId())
                .set("sequence", sequence)
                .set("topic", command.topic())
                .set("type", command.type())
                .set("payload", command.payload())
                .set("sha", command.payloadSha256())
                .set("received", receivedAt)
                .set("expires", command.expiresAt().map(Instant::toEpochMilli).orElse(null))
                .set("stored", storedAt)
                .one(rs -> rs.getLong("id"));
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

    private static Optional<CommandRecord> find(NamedStatements sql, NewCommand command) throws SQLException {
        return sql.get(OutboxSql.FIND)
                .set("c", command.clientId())
                .set("id", command.commandId())
                .first(OutboxRows::commandRecord);
    }

    /** A device's open commands and their payload bytes ({@link IntakeSql#DEVICE_SHARE}). */
    private record DeviceFill(long commands, long bytes) {
        static DeviceFill read(ResultSet rs) throws SQLException {
            return new DeviceFill(rs.getLong("open_count"), rs.getLong("open_bytes"));
        }
    }
}
