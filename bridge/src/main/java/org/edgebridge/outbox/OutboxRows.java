package org.edgebridge.outbox;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * How the outbox's rows become records: each column read by name, never by position, by a reader of its own here
 * (the rows of {@link NamedStatements}). Times are stored as epoch milliseconds and states by their
 * {@link CommandState#dbName()}; a NULL time that may be one is null, or an empty {@code Optional<Instant>}.
 */
final class OutboxRows {
    private OutboxRows() {}

    /** One row of {@link AdminSql#COUNT_PER_STATE}. */
    record StateCount(CommandState state, long rowsInState) {}

    /** The columns of {@link OutboxSql#RECORD_COLUMNS}, by name. */
    static CommandRecord commandRecord(ResultSet rs) throws SQLException {
        return new CommandRecord(
                rs.getLong("id"),
                rs.getString("client_id"),
                rs.getString("command_id"),
                rs.getLong("sequence"),
                rs.getString("topic"),
                rs.getString("type"),
                rs.getString("payload_sha256"),
                Instant.ofEpochMilli(rs.getLong("received_at")),
                CommandState.fromDb(rs.getString("state")),
                rs.getInt("attempts"),
                rs.getInt("retry_laters"),
                Instant.ofEpochMilli(rs.getLong("not_before")),
                rs.getString("last_error"),
                rs.getString("code"),
                rs.getString("message"),
                rs.getString("result_json"),
                optionalInstant(rs, "final_at"));
    }

    /** The columns of {@link AdminSql#HISTORY_OF} (and of {@link AdminSql#RECENT_PROBLEMS}), by name. */
    static HistoryEntry historyEntry(ResultSet rs) throws SQLException {
        return new HistoryEntry(
                Instant.ofEpochMilli(rs.getLong("at")),
                rs.getString("kind"),
                rs.getString("batch_id"),
                rs.getString("status"),
                rs.getString("code"),
                rs.getString("detail"),
                rs.getInt("times"),
                Instant.ofEpochMilli(rs.getLong("first_at")),
                rs.getObject("http_status") == null ? null : rs.getInt("http_status"),
                rs.getObject("took_ms") == null ? null : rs.getLong("took_ms"));
    }

    /** The columns of {@link AdminSql#LIFE_OF}, by name. */
    static CommandLife commandLife(ResultSet rs) throws SQLException {
        return new CommandLife(
                instant(rs, "stored_at"),
                instant(rs, "claimed_at"),
                rs.getString("last_request_id"),
                rs.getObject("http_status") == null ? null : rs.getInt("http_status"),
                rs.getObject("took_ms") == null ? null : rs.getLong("took_ms"),
                instant(rs, "receipt_published_at"),
                instant(rs, "receipt_acked_at"),
                instant(rs, "expires_at"));
    }

    /** The columns of {@link AdminSql#DEVICES}, by name. */
    static DeviceRow deviceRow(ResultSet rs) throws SQLException {
        return new DeviceRow(
                rs.getString("client_id"),
                rs.getLong("last_sequence"),
                Instant.ofEpochMilli(rs.getLong("first_seen_at")),
                Instant.ofEpochMilli(rs.getLong("last_seen_at")),
                rs.getLong("open_commands"));
    }

    /** A time column that may be NULL: null then. */
    static @Nullable Instant instant(ResultSet rs, String column) throws SQLException {
        long millis = rs.getLong(column);
        return rs.wasNull() ? null : Instant.ofEpochMilli(millis);
    }

    static Optional<Instant> optionalInstant(ResultSet rs, String column) throws SQLException {
        long millis = rs.getLong(column);
        return rs.wasNull() ? Optional.empty() : Optional.of(Instant.ofEpochMilli(millis));
    }
}
