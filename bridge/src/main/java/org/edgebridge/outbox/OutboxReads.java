package org.edgebridge.outbox;

import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What the admin API, the status page and diagnostics read of the outbox: listings, a command's history, devices,
 * counts, recent problems. Reads only, each on a connection opened for the call and closed before it returns (WAL:
 * a read never waits for the writer). Thread-safe.
 */
public final class OutboxReads {
    private final OutboxReading reading;

    OutboxReads(OutboxReading reading) {
        this.reading = reading;
    }

    /** What happened to a command, oldest first. */
    public List<HistoryEntry> history(long id) {
        return reading.read(sql -> sql.get(AdminSql.HISTORY_OF).set("id", id).list(OutboxRows::historyEntry));
    }

    /** What the row keeps of a command's life for its timeline; empty when the row is gone (purged). */
    public Optional<CommandLife> life(long id) {
        return reading.read(sql -> sql.get(AdminSql.LIFE_OF).set("id", id).first(OutboxRows::commandLife));
    }

    /**
     * Rows after the cursor row, optionally of one state and one device.
     *
     * @param state null for every state
     * @param clientId null for every device
     * @param afterId the cursor: ids above it, or below it when {@code newestFirst}
     * @param newestFirst true: ids descending, starting below {@code afterId} (use {@link Long#MAX_VALUE} to start)
     */
    public List<CommandRecord> list(
            @Nullable CommandState state, @Nullable String clientId, long afterId, int limit, boolean newestFirst) {
        return reading.read(sql -> {
            var q = sql.get(AdminSql.list(state != null, clientId != null, newestFirst))
                    .set("after", afterId)
                    .set("limit", limit);
            if (state != null) {
                q.set("state", state.dbName());
            }
            if (clientId != null) {
                q.set("c", clientId);
            }
            return q.list(OutboxRows::commandRecord);
        });
    }

    /** Every device that ever stored a command, with its open commands. */
    public List<DeviceRow> devices() {
        return reading.read(sql -> sql.get(AdminSql.DEVICES).list(OutboxRows::deviceRow));
    }

    /** One history line with the command it belongs to, for diagnostics. */
    public record Event(String clientId, String commandId, HistoryEntry entry) {}

    /** The latest history lines that are not plain successes (releases, retry laters, parking, admin actions). */
    public List<Event> recentProblems(int limit) {
        return reading.read(sql -> sql.get(AdminSql.RECENT_PROBLEMS)
                .set("limit", limit)
                .list(rs ->
                        new Event(rs.getString("client_id"), rs.getString("command_id"), OutboxRows.historyEntry(rs))));
    }

    /** Rows per state and the oldest open command, read on one connection in two statements. */
    public OutboxCounts counts() {
        return reading.read(sql -> {
            Map<CommandState, Long> perState = new EnumMap<>(CommandState.class);
            for (OutboxRows.StateCount c : sql.get(AdminSql.COUNT_PER_STATE)
                    .list(rs -> new OutboxRows.StateCount(
                            CommandState.fromDb(rs.getString("state")), rs.getLong("rows_in_state")))) {
                perState.put(c.state(), c.rowsInState());
            }
            Optional<Instant> oldest = sql.get(AdminSql.OLDEST_OPEN).one(rs -> {
                long millis = rs.getLong(1); // MIN() of no rows: NULL
                return rs.wasNull() ? Optional.<Instant>empty() : Optional.of(Instant.ofEpochMilli(millis));
            });
            return new OutboxCounts(perState, oldest);
        });
    }

    /** The schema version Flyway has applied. */
    public String schemaVersion() {
        return reading.read(sql -> sql.get(UpkeepSql.SCHEMA_VERSION)
                .first(rs -> rs.getString("version"))
                .orElse("none"));
    }
}
