package org.edgebridge.outbox;

import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jdbi.v3.core.Jdbi;
import org.jspecify.annotations.Nullable;

/**
 * What the admin API, the status page and diagnostics read of the outbox: listings, a command's history, devices,
 * counts, recent problems. Reads only, each on a connection opened for the call and closed before it returns (WAL:
 * a read never waits for the writer). Thread-safe.
 */
public final class OutboxReads {
    private final Jdbi jdbi;

    OutboxReads(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    /** What happened to a command, oldest first. */
    public List<HistoryEntry> history(long id) {
        return jdbi.withHandle(handle -> handle.createQuery(AdminSql.HISTORY_OF)
                .bind("id", id)
                .mapTo(HistoryEntry.class)
                .list());
    }

    /** What the row keeps of a command's life for its timeline; empty when the row is gone (purged). */
    public Optional<CommandLife> life(long id) {
        return jdbi.withHandle(handle -> handle.createQuery(AdminSql.LIFE_OF)
                .bind("id", id)
                .mapTo(CommandLife.class)
                .findOne());
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
        return jdbi.withHandle(handle -> {
            var q = handle.createQuery(AdminSql.list(state != null, clientId != null, newestFirst))
                    .bind("after", afterId)
                    .bind("limit", limit);
            if (state != null) {
                q.bind("state", state.dbName());
            }
            if (clientId != null) {
                q.bind("c", clientId);
            }
            return q.mapTo(CommandRecord.class).list();
        });
    }

    /** Every device that ever stored a command, with its open commands. */
    public List<DeviceRow> devices() {
        return jdbi.withHandle(handle ->
                handle.createQuery(AdminSql.DEVICES).mapTo(DeviceRow.class).list());
    }

    /** One history line with the command it belongs to, for diagnostics. */
    public record Event(String clientId, String commandId, HistoryEntry entry) {}

    /** The latest history lines that are not plain successes (releases, retry laters, parking, admin actions). */
    public List<Event> recentProblems(int limit) {
        return jdbi.withHandle(handle -> handle.createQuery(AdminSql.RECENT_PROBLEMS)
                .bind("limit", limit)
                .map((rs, ctx) -> new Event(
                        rs.getString("client_id"),
                        rs.getString("command_id"),
                        ctx.findRowMapperFor(HistoryEntry.class).orElseThrow().map(rs, ctx)))
                .list());
    }

    /** Rows per state and the oldest open command, read on one connection in two statements. */
    public OutboxCounts counts() {
        return jdbi.withHandle(handle -> {
            Map<CommandState, Long> perState = new EnumMap<>(CommandState.class);
            handle.createQuery(AdminSql.COUNT_PER_STATE)
                    .mapTo(OutboxRows.StateCount.class)
                    .forEach(c -> perState.put(c.state(), c.rowsInState()));
            Optional<Instant> oldest = handle.createQuery(AdminSql.OLDEST_OPEN)
                    .mapTo(Instant.class)
                    .findOne();
            return new OutboxCounts(perState, oldest);
        });
    }

    /** The schema version Flyway has applied. */
    public String schemaVersion() {
        return jdbi.withHandle(handle -> handle.createQuery(OutboxSql.SCHEMA_VERSION)
                .mapTo(String.class)
                .findOne()
                .orElse("none"));
    }
}
