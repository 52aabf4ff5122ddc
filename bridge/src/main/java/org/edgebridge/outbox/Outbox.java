package org.edgebridge.outbox;

import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.edgebridge.trace.CommandTrace;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;

/**
 * The SQLite outbox (docs/protocol.md §2.5): the bridge's only durable record of commands and their receipts.
 *
 * <p>One persistence style: Jdbi's fluent API on a {@link Handle}, with every statement a constant of
 * {@link OutboxSql} and every row mapped by column name into a record ({@link OutboxRows}). Fluent rather than
 * SqlObject interfaces because the claim and the settle are loops that decide statement by statement inside one
 * transaction, the query plan test reads the SQL text of each hot statement, and the intake's writer must run its
 * statements on one handle that keeps them prepared; one SQL class and one call style serve all three. The intake
 * writer and the claim bind the same SQL on plain JDBC (measured: Jdbi's own per-statement work cost more CPU than
 * SQLite's on the write path; {@link CommandWriter}, {@link NamedStatements}).
 *
 * <p>Thread-safe. Every write method is a request to the outbox's one writer thread ({@link OutboxWriter}), which
 * owns the one write connection and commits whatever requests wait in one transaction begun IMMEDIATE (the intake's
 * commands, the forwarder's settle and claim, the marks of published receipts meet in one fsync); the method returns
 * once that is committed. No second write path, no lock handed between threads (issue 25). The read methods open a
 * connection for the call (the data source has no pool) and close it before returning. SQLite's busy timeout (30 s)
 * is kept for a writer outside this process, such as an admin's sqlite3. The database runs in WAL mode with
 * {@code synchronous=FULL}: a committed transaction survives a power cut.
 */
public final class Outbox {
    private final Jdbi jdbi;
    private final Clock clock;
    private final Path file;
    private final AtomicLong openRows;
    /**
     * Every write of this process, on one thread and one kept connection ({@link OutboxWriter}): the intake's commands
     * and the forwarder's settles meet in one transaction and one fsync. The data dir's lock makes this process the
     * only writer.
     */
    private final OutboxWriter writer;
    private final ParkedDesk desk;
    private final Expiries expiries;
    /** The connection of {@link #checkpointPassive}, kept between checkpoints. */
    private Handle checkpointHandle; // guarded by checkpointLock
    private final Object checkpointLock = new Object();

    private Outbox(Jdbi jdbi, Clock clock, Path file) {
        this.jdbi = jdbi;
        this.writer = new OutboxWriter(jdbi);
        this.clock = clock;
        this.file = file;
        this.openRows = new AtomicLong(jdbi.withHandle(h -> h.createQuery(OutboxSql.COUNT_OPEN).mapTo(Long.class).one()));
        this.desk = new ParkedDesk(jdbi, this::write, clock, openRows);
        this.expiries = new Expiries(jdbi, this::write, clock, openRows);
    }

    /** Opens (creating if needed) the outbox file and migrates its schema to the newest version. */
    public static Outbox open(Path file, Clock clock) {
        return new Outbox(OutboxDatabase.open(file), clock, file);
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
        return store(() -> commands, capacity);
    }

    /**
     * {@link #store(List, long)} of the commands {@code batch} returns once this outbox's write turn has come: the
     * intake writer tops its batch up there with what arrived while the writer committed what came before, so
     * that under load the same commands take fewer, larger transactions, and none waits longer for it.
     */
    public List<StoreResult> store(Supplier<List<NewCommand>> batch, long capacity) {
        List<StoreResult> results;
        try {
            results = writer.write(h -> CommandWriter.store(writer.commands(), batch.get(), capacity));
        } catch (RuntimeException e) {
            throw new IllegalStateException("outbox write failed: " + e.getMessage(), e);
        }
        openRows.addAndGet(results.stream().filter(r -> r instanceof StoreResult.Stored).count());
        return results;
    }

    /** {@link #store(List, long)} without a limit. */
    public List<StoreResult> store(List<NewCommand> commands) {
        return store(commands, Long.MAX_VALUE);
    }

    /**
     * Writes many new commands at once in one state, as a long-running site holds them (a backlog after an outage,
     * final rows due for retention): for the benchmark and test fixtures, not for intake. One transaction, in
     * prepared batches; each device's sequence goes on from its last. There is no dedup check: a known
     * (clientId, commandId) fails the whole load. Final rows count as published.
     *
     * @param finalAt when final rows became final; not used for open states
     * @return how many rows were written
     */
    public long bulkLoad(Stream<NewCommand> commands, CommandState state, Instant finalAt) {
        long written = write(handle -> BulkLoader.load(handle, commands, state, finalAt));
        if (!state.isFinal()) {
            openRows.addAndGet(written);
        }
        return written;
    }

    /** A write, committed by the outbox's one writer ({@link OutboxWriter}) before this returns. */
    private <R> R write(HandleCallback<R, RuntimeException> transaction) {
        return writer.write(transaction::withHandle);
    }

    /** What one checkpoint found: pages in the write-ahead log, and how many of them are in the database file now. */
    record Checkpoint(long logPages, long pagesCopied) {}

    /**
     * Copies what it can of the write-ahead log into the database file without waiting for, or blocking, a writer
     * (SQLite's PASSIVE checkpoint), on a connection of its own ({@link WalCheckpointer}'s thread).
     */
    Checkpoint checkpointPassive() {
        synchronized (checkpointLock) {
            if (checkpointHandle == null) {
                checkpointHandle = jdbi.open();
            }
            try {
                return checkpointHandle.createQuery(OutboxSql.CHECKPOINT_PASSIVE)
                        .map((rs, ctx) -> new Checkpoint(rs.getLong("log"), rs.getLong("checkpointed"))).one();
            } catch (RuntimeException e) {
                closeCheckpointHandle();
                throw e;
            }
        }
    }

    private void closeCheckpointHandle() {
        synchronized (checkpointLock) {
            if (checkpointHandle != null) {
                try {
                    checkpointHandle.close();
                } catch (RuntimeException e) {
                    // gone either way; the next checkpoint opens a new one
                }
                checkpointHandle = null;
            }
        }
    }

    /** How busy the outbox's one writer is, and how many write requests share a transaction. */
    public WriterFigures writerFigures() {
        return writer.figures();
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
                .mapTo(CommandRecord.class).findOne();
    }

    /** What happened to a command, oldest first. */
    public List<HistoryEntry> history(long id) {
        return jdbi.withHandle(handle -> handle.createQuery(OutboxSql.HISTORY_OF).bind("id", id)
                .mapTo(HistoryEntry.class).list());
    }

    /**
     * Rows after the cursor row, optionally of one state and one device.
     *
     * @param state null for every state
     * @param clientId null for every device
     * @param afterId the cursor: ids above it, or below it when {@code newestFirst}
     * @param newestFirst true: ids descending, starting below {@code afterId} (use {@link Long#MAX_VALUE} to start)
     */
    public List<CommandRecord> list(CommandState state, String clientId, long afterId, int limit, boolean newestFirst) {
        return jdbi.withHandle(handle -> {
            var q = handle.createQuery(OutboxSql.list(state != null, clientId != null, newestFirst))
                    .bind("after", afterId).bind("limit", limit);
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
        return jdbi.withHandle(handle -> handle.createQuery(OutboxSql.DEVICES).mapTo(DeviceRow.class).list());
    }

    /**
     * Claims the next events for one request, marking them in flight. Per device, events are taken in sequence
     * order from the lowest open one, and only while each is pending and due: a device whose lowest open event
     * waits (retry later, parked, in flight) contributes nothing, and other devices are not held back.
     *
     * @param maxEvents most events to claim
     * @param maxBytes byte budget of the events in the request, each measured by {@code size} (the first event is
     *     always taken: alone, it may be larger)
     * @param maxRowId only rows up to this id (rows whose {@code stored} receipt has been published)
     * @param batchId the request these events go out in
     */
    public List<ClaimedEvent> claim(int maxEvents, int maxBytes, WireSize size, long maxRowId, String batchId) {
        long now = clock.millis();
        NextClaim next = new NextClaim(maxEvents, maxBytes, size, maxRowId, batchId);
        List<ClaimedEvent> claimed = write(handle -> claimIn(now, next));
        CommandTrace.mark(CommandTrace.Step.CLAIMED, claimed, ClaimedEvent::id);
        return claimed;
    }

    /** The claim of {@link #claim}, inside the write transaction under way. */
    private List<ClaimedEvent> claimIn(long now, NextClaim next) {
        try {
            return Claimer.claim(writer.statements(), now, next.maxEvents(), next.maxBytes(), next.size(),
                    next.maxRowId(), next.batchId());
        } catch (SQLException e) {
            throw new IllegalStateException("claim failed: " + e.getMessage(), e);
        }
    }

    /** A claim as {@link #claim} makes it, made by a settle in the same transaction ({@link #settle(String, List, int, NextClaim)}). */
    public record NextClaim(int maxEvents, int maxBytes, WireSize size, long maxRowId, String batchId) {}

    /**
     * Applies the outcome of a request, in one transaction. Only rows still in flight are changed.
     *
     * @param maxAttempts central retry_later answers after which an event is parked
     * @return the commands that became final, to publish their receipts
     */
    public SettleResult settle(String batchId, List<Settlement> settlements, int maxAttempts) {
        return settle(batchId, settlements, maxAttempts, null);
    }

    /**
     * {@link #settle(String, List, int)}, then, in the same transaction, the claim of the next request ({@link #claim}):
     * one request to the outbox writer per request instead of two (issue 16). The claim sees this settle:
     * a device whose event became final here has its next one claimed.
     *
     * @param next the claim to make after the settle; null for none
     */
    public SettleResult settle(String batchId, List<Settlement> settlements, int maxAttempts, NextClaim next) {
        long now = clock.millis();
        SettleResult result = write(handle -> {
            Settler.Applied applied = Settler.apply(handle, now, batchId, settlements, maxAttempts);
            List<CommandRecord> finals = byIds(handle, applied.finals());
            return new SettleResult(finals, applied.parked(), next == null ? List.of() : claimIn(now, next));
        });
        openRows.addAndGet(-result.finals().size());
        CommandTrace.mark(CommandTrace.Step.SETTLED, result.finals(), CommandRecord::id);
        CommandTrace.mark(CommandTrace.Step.CLAIMED, result.claimed(), ClaimedEvent::id);
        return result;
    }

    /**
     * @param finals commands that became final, with their receipts
     * @param parked how many were parked
     * @param claimed the events of the next claim made in the same transaction (empty when none was asked for)
     */
    public record SettleResult(List<CommandRecord> finals, int parked, List<ClaimedEvent> claimed) {}

    /** An admin's decision on a parked command. Empty if there is no such command or it is not parked. */
    public Optional<CommandRecord> requeue(String clientId, String commandId) {
        return decideOne(clientId, commandId, ParkedDesk.Decision.REQUEUE);
    }

    /**
     * Every pending row that waits for its own time (a receipt's retryAfterMs, the per-event backoff) is due now: an
     * admin ends every wait (POST /api/forwarder/retry-now). No history line: the wait was not the command's doing.
     * @return how many rows were waiting
     */
    public int makePendingDue() {
        long now = clock.millis();
        return write(handle -> handle.createUpdate(OutboxSql.MAKE_PENDING_DUE).bind("now", now).execute());
    }

    /** Parked → rejected / {@code rejected_by_admin}. Empty if there is no such command or it is not parked. */
    public Optional<CommandRecord> reject(String clientId, String commandId) {
        return decideOne(clientId, commandId, ParkedDesk.Decision.REJECT);
    }

    private Optional<CommandRecord> decideOne(String clientId, String commandId, ParkedDesk.Decision decision) {
        return find(clientId, commandId).flatMap(r -> desk.decide(List.of(r.id()), decision, "by an admin").stream().findFirst());
    }

    /** The parked commands, for an admin to look at and decide on. */
    public ParkedDesk parked() {
        return desk;
    }

    /** Commands that expired before central saw them (docs/protocol.md §1.4), for the forwarder. */
    public Expiries expiries() {
        return expiries;
    }

    private static List<CommandRecord> byIds(Handle handle, List<Long> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        return handle.createQuery(OutboxSql.BY_IDS).bind("ids", OutboxSql.idList(ids)).mapTo(CommandRecord.class).list();
    }

    /**
     * Records that the final receipts of these rows were handed to the broker: committed with the next write
     * transaction of this outbox (at the latest by {@link #unpublishedFinals} or {@link #close}), not at once.
     */
    public void markPublished(List<Long> ids) {
        writer.markPublished(ids);
    }

    /**
     * Final commands whose receipt was committed but never handed to the broker (a crash in between). Commits the
     * marks that wait first: a receipt handed out a moment ago is not one of them.
     */
    public List<CommandRecord> unpublishedFinals(int limit) {
        writer.flushMarks();
        return jdbi.withHandle(handle -> handle.createQuery(OutboxSql.UNPUBLISHED).bind("limit", limit)
                .mapTo(CommandRecord.class).list());
    }

    /**
     * Returns the rows of one claim that are still in flight to pending (an unexpected failure between claim and
     * settle). Rows of the claim that were settled, or released and claimed again since, are not touched.
     *
     * @return how many rows were released
     */
    public int releaseClaim(String claimId, String reason) {
        long now = clock.millis();
        return write(handle -> Settler.releaseClaim(handle, now, claimId, reason, true));
    }

    /** {@link #releaseClaim} of a claim that was never sent (it does not count as seen by central, see V6__expiry.sql). */
    public int releaseUnsentClaim(String claimId, String reason) {
        long now = clock.millis();
        return write(handle -> Settler.releaseClaim(handle, now, claimId, reason, false));
    }

    /**
     * Returns every in-flight row to pending. Called once at start-up, before the forwarder runs: a claim
     * that survives a restart belonged to a request that never completed.
     *
     * @return how many rows were released
     */
    public int releaseAbandonedClaims() {
        long now = clock.millis();
        return write(handle -> Settler.releaseAbandonedClaims(handle, now));
    }

    /**
     * Deletes up to {@code batch} final rows (and their history) that became final before {@code cutoff}, in one
     * short transaction. Open rows are never purged.
     *
     * @return how many rows were deleted
     */
    public int purgeFinalBefore(Instant cutoff, int batch) {
        return write(handle -> {
            List<Long> ids = handle.createQuery(OutboxSql.PURGE_CANDIDATES)
                    .bind("cutoff", cutoff.toEpochMilli()).bind("limit", batch).mapTo(Long.class).list();
            if (ids.isEmpty()) {
                return 0;
            }
            handle.createUpdate(OutboxSql.PURGE_HISTORY).bind("ids", OutboxSql.idList(ids)).execute();
            return handle.createUpdate(OutboxSql.PURGE_COMMANDS).bind("ids", OutboxSql.idList(ids)).execute();
        });
    }

    /** One history line with the command it belongs to, for diagnostics. */
    public record Event(String clientId, String commandId, HistoryEntry entry) {}

    /** The latest history lines that are not plain successes (releases, retry laters, parking, admin actions). */
    public List<Event> recentProblems(int limit) {
        return jdbi.withHandle(handle -> handle.createQuery(OutboxSql.RECENT_PROBLEMS).bind("limit", limit)
                .map((rs, ctx) -> new Event(rs.getString("client_id"), rs.getString("command_id"),
                        ctx.findRowMapperFor(HistoryEntry.class).orElseThrow().map(rs, ctx)))
                .list());
    }

    /** The schema version Flyway has applied. */
    public String schemaVersion() {
        return jdbi.withHandle(handle -> handle.createQuery(OutboxSql.SCHEMA_VERSION).mapTo(String.class).findOne()
                .orElse("none"));
    }

    /** The highest row id stored so far (0 when empty). */
    public long maxRowId() {
        return jdbi.withHandle(handle -> handle.createQuery(OutboxSql.MAX_ROW_ID).mapTo(Long.class).one());
    }

    /** Rows per state and the oldest open command, read on one connection in two statements. */
    public OutboxCounts counts() {
        return jdbi.withHandle(handle -> {
            Map<CommandState, Long> perState = new EnumMap<>(CommandState.class);
            handle.createQuery(OutboxSql.COUNT_PER_STATE).mapTo(OutboxRows.StateCount.class)
                    .forEach(c -> perState.put(c.state(), c.rowsInState()));
            Optional<Instant> oldest = handle.createQuery(OutboxSql.OLDEST_OPEN).mapTo(Instant.class).findOne();
            return new OutboxCounts(perState, oldest);
        });
    }

    /** True when a write transaction can be committed now (for the readiness check). */
    public boolean isWritable() {
        try {
            write(handle -> { handle.execute(OutboxSql.WRITE_PROBE); return null; });
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * Closes the writer's connection and folds the write-ahead log into the database file. The outbox stays usable:
     * the next call opens what it needs again.
     */
    public void close() {
        writer.close();
        closeCheckpointHandle();
        try {
            jdbi.useHandle(handle -> handle.execute(OutboxSql.CHECKPOINT));
        } catch (RuntimeException e) {
            // a checkpoint is an optimisation: the WAL is replayed on the next open
        }
    }
}
