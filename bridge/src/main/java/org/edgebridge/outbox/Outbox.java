package org.edgebridge.outbox;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.edgebridge.trace.CommandTrace;
import org.flywaydb.core.Flyway;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.StatementContext;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * The SQLite outbox (docs/protocol.md §2.5): the bridge's only durable record of commands and their receipts.
 *
 * <p>Thread-safe: every method runs in its own connection and transaction. Write transactions begin
 * IMMEDIATE, so two writers queue on SQLite's lock instead of failing. The database runs in WAL mode
 * with {@code synchronous=FULL}: a committed transaction survives a power cut.
 */
public final class Outbox {
    private final Jdbi jdbi;
    private final Clock clock;
    private final Path file;
    private final AtomicLong openRows;
    private final CommandWriter writer;

    private Outbox(Jdbi jdbi, SQLiteDataSource dataSource, Clock clock, Path file) {
        this.jdbi = jdbi;
        this.writer = new CommandWriter(dataSource);
        this.clock = clock;
        this.file = file;
        this.openRows = new AtomicLong(jdbi.withHandle(h -> h.createQuery(OutboxSql.COUNT_OPEN).mapTo(Long.class).one()));
    }

    /** Opens (creating if needed) the outbox file and migrates its schema to the newest version. */
    public static Outbox open(Path file, Clock clock) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot create the outbox directory for " + file + ": " + e.getMessage(), e);
        }
        SQLiteConfig config = new SQLiteConfig();
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
        config.setBusyTimeout(30_000);
        config.enforceForeignKeys(true);
        config.setTransactionMode(SQLiteConfig.TransactionMode.IMMEDIATE);
        SQLiteDataSource dataSource = new SQLiteDataSource(config);
        dataSource.setUrl("jdbc:sqlite:" + file.toAbsolutePath());
        Flyway.configure()
                .dataSource(dataSource)
                .locations("classpath:db/migration")
                .failOnMissingLocations(true)
                .callbacks(new V1ChecksumRepair())
                .load()
                .migrate();
        return new Outbox(Jdbi.create(dataSource), dataSource, clock, file);
    }

    public Path file() {
        return file;
    }

    /**
     * Stores commands in one transaction, in list order. A command whose (clientId, commandId) is known is
     * not written again; its result says whether the bytes were the same. New commands beyond
     * {@code capacity} are not stored ({@link StoreResult.Full}); known ones are still answered.
     */
    public List<StoreResult> store(List<NewCommand> commands, long capacity) {
        List<StoreResult> results;
        try {
            results = writer.store(commands, capacity);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("outbox write failed: " + e.getMessage(), e);
        }
        openRows.addAndGet(results.stream().filter(r -> r instanceof StoreResult.Stored).count());
        return results;
    }

    /** {@link #store(List, long)} without a limit. */
    public List<StoreResult> store(List<NewCommand> commands) {
        return store(commands, Long.MAX_VALUE);
    }

    /** Commands that are not final yet (pending, in flight, parked): what back-pressure counts. */
    public long openCount() {
        return openRows.get();
    }

    public Optional<CommandRecord> find(String clientId, String commandId) {
        return jdbi.withHandle(handle -> find(handle, clientId, commandId));
    }

    private static Optional<CommandRecord> find(Handle handle, String clientId, String commandId) {
        return handle.createQuery(OutboxSql.FIND).bind("c", clientId).bind("id", commandId)
                .map(Outbox::mapRecord).findOne();
    }

    /** What happened to a command, oldest first. */
    public List<HistoryEntry> history(long id) {
        return jdbi.withHandle(handle -> handle.createQuery("""
                SELECT at, kind, batch_id, status, code, detail FROM command_history WHERE command = :id ORDER BY id""")
                .bind("id", id)
                .map((rs, ctx) -> new HistoryEntry(Instant.ofEpochMilli(rs.getLong(1)), rs.getString(2), rs.getString(3),
                        rs.getString(4), rs.getString(5), rs.getString(6)))
                .list());
    }

    /**
     * Rows in id order, after {@code afterId}, optionally of one state and one device.
     *
     * @param state null for every state
     * @param clientId null for every device
     */
    /**
     * Rows after the cursor row, optionally of one state and one device.
     *
     * @param newestFirst true: ids descending, starting below {@code afterId} (use {@link Long#MAX_VALUE} to start)
     */
    public List<CommandRecord> list(CommandState state, String clientId, long afterId, int limit, boolean newestFirst) {
        StringBuilder sql = new StringBuilder("SELECT " + OutboxSql.RECORD_COLUMNS + " FROM commands WHERE id "
                + (newestFirst ? "<" : ">") + " :after");
        if (state != null) {
            sql.append(" AND state = :state");
        }
        if (clientId != null) {
            sql.append(" AND client_id = :c");
        }
        sql.append(newestFirst ? " ORDER BY id DESC LIMIT :limit" : " ORDER BY id LIMIT :limit");
        return jdbi.withHandle(handle -> {
            var q = handle.createQuery(sql.toString()).bind("after", afterId).bind("limit", limit);
            if (state != null) {
                q.bind("state", state.dbName());
            }
            if (clientId != null) {
                q.bind("c", clientId);
            }
            return q.map(Outbox::mapRecord).list();
        });
    }

    /** Every device that ever stored a command, with its open commands. */
    public List<DeviceRow> devices() {
        return jdbi.withHandle(handle -> handle.createQuery("""
                SELECT d.client_id, d.last_sequence, d.first_seen_at, d.last_seen_at,
                       (SELECT COUNT(*) FROM commands c INDEXED BY commands_open
                        WHERE c.client_id = d.client_id AND c.state IN """ + OutboxSql.OPEN_STATES + """
                       ) AS open_commands
                FROM devices d ORDER BY d.client_id""")
                .map((rs, ctx) -> new DeviceRow(rs.getString(1), rs.getLong(2), Instant.ofEpochMilli(rs.getLong(3)),
                        Instant.ofEpochMilli(rs.getLong(4)), rs.getLong(5)))
                .list());
    }

    /**
     * Claims the next events for one request, marking them in flight. Per device, events are taken in sequence
     * order from the lowest open one, and only while each is pending and due: a device whose lowest open event
     * waits (retry later, parked, in flight) contributes nothing, and other devices are not held back.
     *
     * @param maxEvents most events to claim
     * @param maxBytes payload byte budget of the request (the first event is always taken)
     * @param maxRowId only rows up to this id (rows whose {@code stored} receipt has been published)
     * @param batchId the request these events go out in
     */
    public List<ClaimedEvent> claim(int maxEvents, int maxBytes, long maxRowId, String batchId) {
        long now = clock.millis();
        List<ClaimedEvent> claimed = jdbi.inTransaction(handle -> Claimer.claim(handle, now, maxEvents, maxBytes, maxRowId, batchId));
        CommandTrace.mark(CommandTrace.Step.CLAIMED, claimed, ClaimedEvent::id);
        return claimed;
    }

    /**
     * Applies the outcome of a request, in one transaction. Only rows still in flight are changed.
     *
     * @param maxAttempts central retry_later answers after which an event is parked
     * @return the commands that became final, to publish their receipts
     */
    public SettleResult settle(String batchId, List<Settlement> settlements, int maxAttempts) {
        long now = clock.millis();
        SettleResult result = jdbi.inTransaction(handle -> {
            Settler.Applied applied = Settler.apply(handle, now, batchId, settlements, maxAttempts);
            return new SettleResult(byIds(handle, applied.finals()), applied.parked());
        });
        openRows.addAndGet(-result.finals().size());
        CommandTrace.mark(CommandTrace.Step.SETTLED, result.finals(), CommandRecord::id);
        return result;
    }

    /** @param finals commands that became final, with their receipts; @param parked how many were parked */
    public record SettleResult(List<CommandRecord> finals, int parked) {}

    /** An admin's decision on a parked command. Empty if there is no such command or it is not parked. */
    public Optional<CommandRecord> requeue(String clientId, String commandId) {
        return adminAction(clientId, commandId, "requeued", """
                UPDATE commands SET state = 'pending', retry_laters = 0, not_before = 0, last_error = NULL, code = NULL
                WHERE id = :id AND state = 'parked'""");
    }

    /** Parked → rejected / {@code rejected_by_admin}. Empty if there is no such command or it is not parked. */
    public Optional<CommandRecord> reject(String clientId, String commandId) {
        Optional<CommandRecord> r = adminAction(clientId, commandId, "rejected_by_admin", """
                UPDATE commands SET state = 'rejected', code = 'rejected_by_admin',
                       message = 'rejected by an admin after it was parked', final_at = :now, receipt_published = 0
                WHERE id = :id AND state = 'parked'""");
        r.ifPresent(x -> openRows.decrementAndGet());
        return r;
    }

    private Optional<CommandRecord> adminAction(String clientId, String commandId, String kind, String update) {
        long now = clock.millis();
        return jdbi.inTransaction(handle -> {
            Optional<CommandRecord> row = find(handle, clientId, commandId);
            if (row.isEmpty() || row.get().state() != CommandState.PARKED) {
                return Optional.empty();
            }
            handle.createUpdate(update).bind("id", row.get().id()).bind("now", now).execute();
            Settler.history(handle, row.get().id(), now, kind, null, null, null, "by an admin");
            return find(handle, clientId, commandId);
        });
    }

    private static List<CommandRecord> byIds(Handle handle, List<Long> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        return handle.createQuery("SELECT " + OutboxSql.RECORD_COLUMNS + " FROM commands WHERE id IN (<ids>) ORDER BY id")
                .bindList("ids", ids)
                .map(Outbox::mapRecord)
                .list();
    }

    /** Records that the final receipts of these rows were handed to the broker. */
    public void markPublished(List<Long> ids) {
        if (ids.isEmpty()) {
            return;
        }
        jdbi.useTransaction(handle -> handle.createUpdate("UPDATE commands SET receipt_published = 1 WHERE id IN (<ids>)")
                .bindList("ids", ids)
                .execute());
    }

    /** Final commands whose receipt was committed but never handed to the broker (a crash in between). */
    public List<CommandRecord> unpublishedFinals(int limit) {
        return jdbi.withHandle(handle -> handle.createQuery(OutboxSql.UNPUBLISHED).bind("limit", limit)
                .map(Outbox::mapRecord).list());
    }

    /**
     * Returns the rows of one claim that are still in flight to pending (an unexpected failure between claim and
     * settle). Rows of the claim that were settled, or released and claimed again since, are not touched.
     *
     * @return how many rows were released
     */
    public int releaseClaim(String claimId, String reason) {
        long now = clock.millis();
        return jdbi.inTransaction(handle -> {
            List<Long> ids = handle.createQuery("SELECT id FROM commands WHERE batch_id = :b AND state = 'inflight'")
                    .bind("b", claimId).mapTo(Long.class).list();
            for (long id : ids) {
                Settler.history(handle, id, now, "released", claimId, null, null, reason);
            }
            handle.createUpdate("UPDATE commands SET state = 'pending', claimed_at = NULL, last_error = :reason "
                    + "WHERE batch_id = :b AND state = 'inflight'")
                    .bind("b", claimId).bind("reason", reason).execute();
            return ids.size();
        });
    }

    /**
     * Returns every in-flight row to pending. Called once at start-up, before the forwarder runs: a claim
     * that survives a restart belonged to a request that never completed.
     *
     * @return how many rows were released
     */
    public int releaseAbandonedClaims() {
        long now = clock.millis();
        return jdbi.inTransaction(handle -> {
            List<Long> ids = handle.createQuery("SELECT id FROM commands WHERE state = 'inflight'").mapTo(Long.class).list();
            for (long id : ids) {
                Settler.history(handle, id, now, "released", null, null, null, "claimed by a request that never completed");
            }
            handle.createUpdate("""
                    UPDATE commands SET state = 'pending', claimed_at = NULL,
                           last_error = 'released at start-up: its request never completed'
                    WHERE state = 'inflight'""").execute();
            return ids.size();
        });
    }

    /**
     * Deletes up to {@code batch} final rows (and their history) that became final before {@code cutoff}, in one
     * short transaction. Open rows are never purged.
     *
     * @return how many rows were deleted
     */
    public int purgeFinalBefore(Instant cutoff, int batch) {
        return jdbi.inTransaction(handle -> {
            List<Long> ids = handle.createQuery(OutboxSql.PURGE_CANDIDATES)
                    .bind("cutoff", cutoff.toEpochMilli()).bind("limit", batch).mapTo(Long.class).list();
            if (ids.isEmpty()) {
                return 0;
            }
            handle.createUpdate("DELETE FROM command_history WHERE command IN (<ids>)").bindList("ids", ids).execute();
            return handle.createUpdate("DELETE FROM commands WHERE id IN (<ids>)").bindList("ids", ids).execute();
        });
    }

    /** One history line with the command it belongs to, for diagnostics. */
    public record Event(String clientId, String commandId, HistoryEntry entry) {}

    /** The latest history lines that are not plain successes (releases, retry laters, parking, admin actions). */
    public List<Event> recentProblems(int limit) {
        return jdbi.withHandle(handle -> handle.createQuery("""
                SELECT c.client_id, c.command_id, h.at, h.kind, h.batch_id, h.status, h.code, h.detail
                FROM command_history h JOIN commands c ON c.id = h.command
                WHERE h.kind IN ('released', 'retry_later', 'parked', 'requeued', 'rejected_by_admin')
                ORDER BY h.id DESC LIMIT :limit""")
                .bind("limit", limit)
                .map((rs, ctx) -> new Event(rs.getString(1), rs.getString(2), new HistoryEntry(Instant.ofEpochMilli(rs.getLong(3)),
                        rs.getString(4), rs.getString(5), rs.getString(6), rs.getString(7), rs.getString(8))))
                .list());
    }

    /** The schema version Flyway has applied. */
    public String schemaVersion() {
        return jdbi.withHandle(handle -> handle.createQuery(
                "SELECT version FROM flyway_schema_history WHERE success = 1 ORDER BY installed_rank DESC LIMIT 1")
                .mapTo(String.class).findOne().orElse("none"));
    }

    /** The highest row id stored so far (0 when empty). */
    public long maxRowId() {
        return jdbi.withHandle(handle -> handle.createQuery("SELECT COALESCE(MAX(id), 0) FROM commands")
                .mapTo(Long.class).one());
    }

    public OutboxCounts counts() {
        return jdbi.withHandle(handle -> {
            Map<CommandState, Long> perState = new EnumMap<>(CommandState.class);
            handle.createQuery("SELECT state, COUNT(*) FROM commands GROUP BY state")
                    .map((rs, ctx) -> Map.entry(CommandState.fromDb(rs.getString(1)), rs.getLong(2)))
                    .forEach(e -> perState.put(e.getKey(), e.getValue()));
            Optional<Instant> oldest = handle.createQuery(OutboxSql.OLDEST_OPEN)
                    .mapTo(Long.class).findOne().map(Instant::ofEpochMilli);
            return new OutboxCounts(perState, oldest);
        });
    }

    /** True when a write transaction can be committed now (for the readiness check). */
    public boolean isWritable() {
        try {
            jdbi.useTransaction(handle -> handle.execute("UPDATE devices SET last_seen_at = last_seen_at WHERE 0"));
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Folds the write-ahead log into the database file. The outbox stays usable (connections are per call). */
    public void close() {
        writer.close();
        try {
            jdbi.useHandle(handle -> handle.execute("PRAGMA wal_checkpoint(TRUNCATE)"));
        } catch (RuntimeException e) {
            // a checkpoint is an optimisation: the WAL is replayed on the next open
        }
    }

    static CommandRecord mapRecord(ResultSet rs, StatementContext ctx) throws SQLException {
        long finalAt = rs.getLong("final_at");
        Optional<Instant> finalInstant = rs.wasNull() ? Optional.empty() : Optional.of(Instant.ofEpochMilli(finalAt));
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
                rs.getString("result"),
                finalInstant);
    }
}
