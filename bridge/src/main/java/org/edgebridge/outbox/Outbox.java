package org.edgebridge.outbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.edgebridge.trace.CommandTrace;
import org.jdbi.v3.core.Jdbi;

/**
 * The SQLite outbox (docs/protocol.md §2.5): the bridge's only durable record of commands and their receipts.
 *
 * <p>How it binds SQL, and why plain JDBC: {@code package-info}. Each caller sees a port of its
 * own: {@link IntakeOutbox} (store, resends), {@link ForwarderOutbox} (claim, settle, release, finals),
 * {@link AdminOutbox} (reads, the parked desk, marks); only the composition root holds the {@code Outbox} itself
 * (ArchitectureTest). Inside them, {@link #reads()} for the admin API and status, {@link #parked()} for the desk,
 * {@link #expiries()} for the forwarder's expiry.
 *
 * <p>Thread-safe. Every write method is a request to the outbox's one writer thread ({@link OutboxWriter}), which
 * owns the one write connection and commits whatever requests wait in one transaction begun IMMEDIATE (the intake's
 * commands, the forwarder's settle and claim, the marks of published receipts meet in one fsync); the method returns
 * once that is committed. No second write path, no lock handed between threads. The read methods open a
 * connection for the call (the data source has no pool) and close it before returning. SQLite's busy timeout (30 s)
 * is kept for a writer outside this process, such as an admin's sqlite3. The database runs in WAL mode with
 * {@code synchronous=FULL}: a committed transaction survives a power cut.
 */
public final class Outbox implements IntakeOutbox, ForwarderOutbox, AdminOutbox {
    private final OutboxReading reading;
    private final Clock clock;
    private final Path file;
    private final AtomicLong openRows;
    /** Every write of this process (the data dir's lock makes it the only writer). */
    private final OutboxWriter writer;

    private final ParkedDesk desk;
    private final PendingDesk pendingDesk;
    private final Expiries expiries;
    private final CheckpointConnection checkpoints;
    private final OutboxReads reads;
    /** The device after which {@link #unpublishedFinals} takes its next turn ("" from the first). */
    private volatile String republishAfter = "";

    private Outbox(Jdbi jdbi, Clock clock, Path file) {
        this.reading = new OutboxReading(jdbi);
        this.writer = new OutboxWriter(jdbi, clock);
        this.clock = clock;
        this.file = file;
        this.openRows =
                new AtomicLong(reading.read(sql -> sql.get(AdminSql.COUNT_OPEN).one(rs -> rs.getLong(1))));
        this.desk = new ParkedDesk(reading, writer::write, clock, openRows);
        this.pendingDesk = new PendingDesk(writer::write, clock, openRows);
        this.expiries = new Expiries(reading, writer::write, clock, openRows);
        this.checkpoints = new CheckpointConnection(jdbi);
        this.reads = new OutboxReads(reading);
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
        return store(batch, capacity, DeviceShare.UNBOUNDED);
    }

    /**
     * {@link #store(Supplier, long)}, and a device's new commands past its {@code share} of the outbox are not stored
     * ({@link StoreResult.DeviceFull}).
     */
    public List<StoreResult> store(Supplier<List<NewCommand>> batch, long capacity, DeviceShare share) {
        List<StoreResult> results;
        try {
            results = writer.write(sql -> CommandWriter.store(sql, batch.get(), capacity, share, clock.millis()));
        } catch (RuntimeException e) {
            throw new IllegalStateException("outbox write failed: " + e.getMessage(), e);
        }
        openRows.addAndGet(
                results.stream().filter(r -> r instanceof StoreResult.Stored).count());
        return results;
    }

    /** {@link #store(List, long)} without a limit. */
    public List<StoreResult> store(List<NewCommand> commands) {
        return store(commands, Long.MAX_VALUE);
    }

    /** A write, committed by the outbox's one writer ({@link OutboxWriter}) before this returns. */
    private <R> R write(OutboxWriter.Work<R> transaction) {
        return writer.write(transaction);
    }

    /** A passive checkpoint on a connection of its own ({@link WalCheckpointer}'s thread). */
    CheckpointConnection.Checkpoint checkpointPassive() {
        return checkpoints.checkpointPassive();
    }

    /** {@link CheckpointConnection#truncateIfFree} ({@link WalCheckpointer}'s thread). */
    boolean truncateLogIfFree() {
        return checkpoints.truncateIfFree();
    }

    /** The size of the write-ahead log file (0 when there is none). */
    long logFileBytes() {
        try {
            Path wal = file.resolveSibling(file.getFileName() + "-wal");
            return Files.exists(wal) ? Files.size(wal) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    /** What the admin API, the status page and diagnostics read. */
    public OutboxReads reads() {
        return reads;
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
        return reading.read(sql ->
                sql.get(OutboxSql.FIND).set("c", clientId).set("id", commandId).first(OutboxRows::commandRecord));
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
        List<ClaimedEvent> claimed = writer.write(sql -> Claimer.claim(sql, now, next));
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
        return settle(SentRequest.unmeasured(batchId), settlements, maxAttempts);
    }

    /** {@link #settle(String, List, int)} of a request whose HTTP status and duration are known (the timeline's). */
    @Override
    public SettleResult settle(SentRequest request, List<Settlement> settlements, int maxAttempts) {
        return settleIn(request, settlements, maxAttempts, Optional.empty());
    }

    /**
     * {@link #settle(String, List, int)}, then, in the same transaction, the claim of the next request ({@link
     * #claim}): one request to the outbox writer per request instead of two. The claim sees this settle: a device whose
     * event became final here has its next one claimed.
     */
    @Override
    public SettleResult settleAndClaim(
            SentRequest request, List<Settlement> settlements, int maxAttempts, NextClaim next) {
        return settleIn(request, settlements, maxAttempts, Optional.of(next));
    }

    private SettleResult settleIn(
            SentRequest request, List<Settlement> settlements, int maxAttempts, Optional<NextClaim> next) {
        long now = clock.millis();
        SettleResult result = writer.write(sql -> {
            Settler.Applied applied = Settler.apply(sql, now, request, settlements, maxAttempts);
            return new SettleResult(
                    Settler.records(sql, applied.finals()),
                    applied.parked(),
                    next.isPresent() ? Claimer.claim(sql, now, next.get()) : List.of());
        });
        openRows.addAndGet(-result.finals().size());
        CommandTrace.mark(CommandTrace.Step.SETTLED, result.finals(), CommandRecord::id);
        CommandTrace.mark(CommandTrace.Step.CLAIMED, result.claimed(), ClaimedEvent::id);
        return result;
    }

    /**
     * Every pending row that waits for its own time (a receipt's retryAfterMs, the per-event backoff) is due now: an
     * admin ends every wait (POST /api/forwarder/retry-now). No history line: the wait was not the command's doing.
     * @return how many rows were waiting
     */
    public int makePendingDue() {
        long now = clock.millis();
        return write(sql -> sql.get(AdminSql.MAKE_PENDING_DUE).set("now", now).update());
    }

    /** The parked commands, for an admin to look at and decide on. */
    public ParkedDesk parked() {
        return desk;
    }

    /** An admin's remedy for a pending command: park it, or reject it (docs/desk.md). */
    public PendingDesk pendingDesk() {
        return pendingDesk;
    }

    /** Commands that expired before central saw them (docs/protocol.md §1.4), for the forwarder. */
    public Expiries expiries() {
        return expiries;
    }

    /**
     * Records that the final receipts of these rows were handed to the broker: committed with the next write
     * transaction of this outbox (at the latest by {@link #unpublishedFinals} or {@link #close}), not at once.
     */
    public void markPublished(List<Long> ids) {
        writer.markPublished(ids);
    }

    /**
     * Records the device's PUBACK of the final receipt of a command (the last step of its timeline), with the next
     * write transaction; never blocks (the broker's event loop calls it).
     */
    public void markReceiptAcked(String clientId, String commandId, Instant at) {
        writer.markAcked(new OutboxWriter.Acked(clientId, commandId, at.toEpochMilli()));
    }

    /**
     * Final commands whose receipt was committed but never handed to the broker (a crash in between, or a device whose
     * queue was full), at most {@code limit}, device by device: up to {@code limit} devices, taken in turn
     * from where the last call stopped, each with an equal share of {@code limit} (at least one), its oldest first.
     * Before, the oldest {@code limit} went first, so a device that
     * never reads and had that many held every other device's receipts behind its own for good; now it takes its
     * share, and the publisher skips the rest of it once the broker refuses one. Commits the marks that wait first: a
     * receipt handed out a moment ago is not one of them.
     */
    public List<CommandRecord> unpublishedFinals(int limit) {
        writer.flushMarks();
        return reading.read(sql -> {
            List<String> turn = sql.get(ForwarderSql.UNPUBLISHED_DEVICES)
                    .set("after", republishAfter)
                    .set("limit", limit)
                    .list(rs -> rs.getString("client_id"));
            republishAfter = turn.size() < limit ? "" : turn.get(turn.size() - 1); // wraps round at the end
            int each = Math.max(1, limit / Math.max(1, turn.size()));
            List<CommandRecord> out = new ArrayList<>();
            for (String clientId : turn) {
                if (out.size() >= limit) {
                    break;
                }
                out.addAll(sql.get(ForwarderSql.UNPUBLISHED)
                        .set("c", clientId)
                        .set("limit", Math.min(each, limit - out.size()))
                        .list(OutboxRows::commandRecord));
            }
            return out;
        });
    }

    /**
     * Returns the rows of one claim that are still in flight to pending (an unexpected failure between claim and
     * settle). Rows of the claim that were settled, or released and claimed again since, are not touched.
     *
     * @return how many rows were released
     */
    public int releaseClaim(String claimId, String reason) {
        long now = clock.millis();
        return write(sql -> Settler.releaseClaim(sql, now, claimId, reason, true));
    }

    /**
     * {@link #releaseClaim} of a claim that was never sent (it does not count as seen by central, see V6__expiry.sql).
     */
    public int releaseUnsentClaim(String claimId, String reason) {
        long now = clock.millis();
        return write(sql -> Settler.releaseClaim(sql, now, claimId, reason, false));
    }

    /**
     * Returns every in-flight row to pending. Called once at start-up, before the forwarder runs: a claim
     * that survives a restart belonged to a request that never completed.
     *
     * @return how many rows were released
     */
    public int releaseAbandonedClaims() {
        long now = clock.millis();
        return write(sql -> Settler.releaseAbandonedClaims(sql, now));
    }

    /**
     * Deletes up to {@code batch} final rows (and their history) that became final before {@code cutoff}, in one
     * short transaction. Open rows are never purged.
     *
     * @return how many rows were deleted
     */
    public int purgeFinalBefore(Instant cutoff, int batch) {
        return write(sql -> RetentionPurger.purge(sql, cutoff, batch));
    }

    /**
     * Deletes up to {@code batch} rows of devices last heard of before {@code cutoff} that the outbox holds no command
     * of, in one short transaction. @return how many were deleted
     */
    public int forgetDevicesBefore(Instant cutoff, int batch) {
        return write(sql -> sql.get(UpkeepSql.FORGET_DEVICES)
                .set("cutoff", cutoff.toEpochMilli())
                .set("limit", batch)
                .update());
    }

    /** Bytes of the outbox file's free pages: room SQLite reuses before the file grows, counted as free disk. */
    public long freeBytes() {
        return reading.read(sql -> sql.get(UpkeepSql.FREE_BYTES).one(rs -> rs.getLong(1)));
    }

    /**
     * Gives up to {@code pages} of the file's free pages back to the file system (auto_vacuum=INCREMENTAL, set by
     * {@link OutboxDatabase}), in one short write transaction.
     *
     * @return the pages given back
     */
    public long giveBackFreePages(int pages) {
        return write(sql -> {
            // a plain Statement, no parameters: its executeUpdate runs the PRAGMA to its end (UpkeepSql says why)
            try (Statement s = sql.connection().createStatement()) {
                long before = freePages(s);
                s.executeUpdate(UpkeepSql.incrementalVacuum(pages));
                return before - freePages(s);
            } catch (SQLException e) {
                throw new IllegalStateException("incremental vacuum failed: " + e.getMessage(), e);
            }
        });
    }

    private static long freePages(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery(UpkeepSql.FREE_PAGES)) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    /** The highest row id stored so far (0 when empty). */
    public long maxRowId() {
        return reading.read(sql -> sql.get(ForwarderSql.MAX_ROW_ID).one(rs -> rs.getLong(1)));
    }

    /** True when a write transaction can be committed now (for the readiness check). */
    public boolean isWritable() {
        try {
            write(sql -> sql.get(UpkeepSql.WRITE_PROBE).update());
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
        checkpoints.close();
        try {
            reading.read(sql -> sql.get(UpkeepSql.CHECKPOINT).list(rs -> rs.getInt("busy")));
        } catch (RuntimeException e) {
            // a checkpoint is an optimisation: the WAL is replayed on the next open
        }
    }
}
