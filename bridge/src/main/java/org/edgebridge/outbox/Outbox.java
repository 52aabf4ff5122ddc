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
import org.flywaydb.core.Flyway;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.StatementContext;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * The SQLite outbox (CONTRACT §3): the bridge's only durable record of commands and their receipts.
 *
 * <p>Thread-safe: every method runs in its own connection and transaction. Write transactions begin
 * IMMEDIATE, so two writers queue on SQLite's lock instead of failing. The database runs in WAL mode
 * with {@code synchronous=FULL}: a committed transaction survives a power cut.
 */
public final class Outbox {
    static final String OPEN_STATES = "('pending', 'inflight', 'parked')";
    static final String FINAL_STATES = "('accepted', 'duplicate', 'rejected')";
    private static final String RECORD_COLUMNS = """
            id, client_id, command_id, sequence, topic, type, payload_sha256, received_at, state, attempts,
            retry_laters, not_before, last_error, code, message, result, final_at""";
    /** Rough JSON overhead of one event around its payload, for the request byte budget. */
    private static final int EVENT_OVERHEAD_BYTES = 400;

    private final Jdbi jdbi;
    private final Clock clock;

    private Outbox(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    /** Opens (creating if needed) the outbox file and migrates its schema to the newest version. */
    public static Outbox open(Path file, Clock clock) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            Files.createDirectories(parent);
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
                .load()
                .migrate();
        return new Outbox(Jdbi.create(dataSource), clock);
    }

    /**
     * Stores commands in one transaction, in list order. A command whose (clientId, commandId) is known is
     * not written again; its result says whether the bytes were the same.
     */
    public List<StoreResult> store(List<NewCommand> commands) {
        return jdbi.inTransaction(handle -> {
            List<StoreResult> results = new ArrayList<>(commands.size());
            for (NewCommand command : commands) {
                results.add(storeOne(handle, command));
            }
            return results;
        });
    }

    private StoreResult storeOne(Handle handle, NewCommand command) {
        Optional<CommandRecord> existing = find(handle, command.clientId(), command.commandId());
        if (existing.isPresent()) {
            CommandRecord record = existing.get();
            return record.payloadSha256().equals(command.payloadSha256())
                    ? new StoreResult.AlreadyStored(command, record)
                    : new StoreResult.IdReused(command, record);
        }
        long receivedAt = command.receivedAt().toEpochMilli();
        long sequence = handle.createQuery("""
                INSERT INTO devices (client_id, last_sequence, first_seen_at, last_seen_at) VALUES (:c, 1, :t, :t)
                ON CONFLICT (client_id) DO UPDATE SET last_sequence = last_sequence + 1, last_seen_at = :t
                RETURNING last_sequence""")
                .bind("c", command.clientId())
                .bind("t", receivedAt)
                .mapTo(Long.class)
                .one();
        long id = handle.createQuery("""
                INSERT INTO commands (client_id, command_id, sequence, topic, type, payload, payload_sha256,
                                      received_at, state)
                VALUES (:clientId, :commandId, :sequence, :topic, :type, :payload, :sha, :receivedAt, 'pending')
                RETURNING id""")
                .bind("clientId", command.clientId())
                .bind("commandId", command.commandId())
                .bind("sequence", sequence)
                .bind("topic", command.topic())
                .bind("type", command.type())
                .bind("payload", command.payload())
                .bind("sha", command.payloadSha256())
                .bind("receivedAt", receivedAt)
                .mapTo(Long.class)
                .one();
        CommandRecord record = new CommandRecord(id, command.clientId(), command.commandId(), sequence, command.topic(),
                command.type(), command.payloadSha256(), command.receivedAt(), CommandState.PENDING, 0, 0,
                Instant.EPOCH, null, null, null, null, Optional.empty());
        return new StoreResult.Stored(command, record);
    }

    public Optional<CommandRecord> find(String clientId, String commandId) {
        return jdbi.withHandle(handle -> find(handle, clientId, commandId));
    }

    private static Optional<CommandRecord> find(Handle handle, String clientId, String commandId) {
        return handle.createQuery("SELECT " + RECORD_COLUMNS + " FROM commands WHERE client_id = :c AND command_id = :id")
                .bind("c", clientId)
                .bind("id", commandId)
                .map(Outbox::mapRecord)
                .findOne();
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
        return jdbi.inTransaction(handle -> {
            List<long[]> heads = handle.createQuery("""
                    SELECT c.id, c.sequence FROM commands c
                    JOIN (SELECT client_id, MIN(sequence) AS head FROM commands
                          WHERE state IN """ + OPEN_STATES + """
                          GROUP BY client_id) h
                      ON c.client_id = h.client_id AND c.sequence = h.head
                    WHERE c.state = 'pending' AND c.not_before <= :now AND c.id <= :maxId
                    ORDER BY c.id LIMIT :limit""")
                    .bind("now", now)
                    .bind("maxId", maxRowId)
                    .bind("limit", maxEvents)
                    .map((rs, ctx) -> new long[] {rs.getLong(1), rs.getLong(2)})
                    .list();
            List<ClaimedEvent> claimed = new ArrayList<>();
            int bytes = 0;
            for (long[] head : heads) {
                String clientId = handle.createQuery("SELECT client_id FROM commands WHERE id = :id")
                        .bind("id", head[0]).mapTo(String.class).one();
                List<ClaimCandidate> run = handle.createQuery("""
                        SELECT id, command_id, sequence, topic, type, payload, payload_sha256, received_at, state,
                               not_before, attempts
                        FROM commands WHERE client_id = :c AND sequence >= :head AND state IN """ + OPEN_STATES + """
                        ORDER BY sequence LIMIT :limit""")
                        .bind("c", clientId)
                        .bind("head", head[1])
                        .bind("limit", maxEvents - claimed.size())
                        .map((rs, ctx) -> new ClaimCandidate(rs.getLong(1), rs.getString(2), rs.getLong(3),
                                rs.getString(4), rs.getString(5), rs.getBytes(6), rs.getString(7), rs.getLong(8),
                                rs.getString(9), rs.getLong(10), rs.getInt(11)))
                        .list();
                for (ClaimCandidate c : run) {
                    boolean due = c.state.equals("pending") && c.notBefore <= now && c.id <= maxRowId;
                    int size = c.payload.length + EVENT_OVERHEAD_BYTES;
                    if (!due || (!claimed.isEmpty() && bytes + size > maxBytes) || claimed.size() >= maxEvents) {
                        break;
                    }
                    bytes += size;
                    claimed.add(new ClaimedEvent(c.id, clientId, c.commandId, c.sequence, c.topic, c.type, c.payload,
                            c.sha, Instant.ofEpochMilli(c.receivedAt), c.attempts + 1));
                }
                if (claimed.size() >= maxEvents || bytes >= maxBytes) {
                    break;
                }
            }
            var update = handle.prepareBatch("""
                    UPDATE commands SET state = 'inflight', claimed_at = :now, attempts = attempts + 1, batch_id = :b
                    WHERE id = :id""");
            var history = handle.prepareBatch("""
                    INSERT INTO command_history (command, at, kind, batch_id, detail)
                    VALUES (:id, :now, 'attempt', :b, :detail)""");
            for (ClaimedEvent e : claimed) {
                update.bind("now", now).bind("b", batchId).bind("id", e.id()).add();
                history.bind("id", e.id()).bind("now", now).bind("b", batchId)
                        .bind("detail", "attempt " + e.attempt()).add();
            }
            if (!claimed.isEmpty()) {
                update.execute();
                history.execute();
            }
            return claimed;
        });
    }

    private record ClaimCandidate(long id, String commandId, long sequence, String topic, String type, byte[] payload,
            String sha, long receivedAt, String state, long notBefore, int attempts) {}

    /**
     * Applies the outcome of a request, in one transaction. Only rows still in flight are changed.
     *
     * @param maxAttempts central retry_later answers after which an event is parked
     * @return the commands that became final, to publish their receipts
     */
    public SettleResult settle(String batchId, List<Settlement> settlements, int maxAttempts) {
        long now = clock.millis();
        return jdbi.inTransaction(handle -> {
            List<Long> finals = new ArrayList<>();
            List<Long> parked = new ArrayList<>();
            for (Settlement s : settlements) {
                if (s instanceof Settlement.Final f) {
                    if (applyFinal(handle, f, now, batchId)) {
                        finals.add(f.id());
                    }
                } else if (s instanceof Settlement.RetryLater r) {
                    if (applyRetryLater(handle, r, now, batchId, maxAttempts)) {
                        parked.add(r.id());
                    }
                } else if (s instanceof Settlement.Release r) {
                    applyRelease(handle, r, now, batchId);
                }
            }
            return new SettleResult(byIds(handle, finals), parked.size());
        });
    }

    private static boolean applyFinal(Handle handle, Settlement.Final f, long now, String batchId) {
        int n = handle.createUpdate("""
                UPDATE commands SET state = :state, code = :code, message = :message, result = :result,
                       final_at = :now, claimed_at = NULL, last_error = NULL
                WHERE id = :id AND state = 'inflight'""")
                .bind("state", f.status().dbName()).bind("code", f.code()).bind("message", f.message())
                .bind("result", f.resultJson()).bind("now", now).bind("id", f.id())
                .execute();
        if (n == 1) {
            history(handle, f.id(), now, "receipt", batchId, f.status().dbName(), f.code(), f.message());
        }
        return n == 1;
    }

    /** @return true if the event was parked */
    private static boolean applyRetryLater(Handle handle, Settlement.RetryLater r, long now, String batchId,
            int maxAttempts) {
        int add = r.countsTowardParking() ? 1 : 0;
        String state = handle.createQuery("""
                UPDATE commands SET
                    state = CASE WHEN :add = 1 AND retry_laters + 1 >= :max THEN 'parked' ELSE 'pending' END,
                    retry_laters = retry_laters + :add, not_before = :nb, last_error = :reason, claimed_at = NULL
                WHERE id = :id AND state = 'inflight' RETURNING state""")
                .bind("add", add).bind("max", maxAttempts).bind("nb", r.notBefore().toEpochMilli())
                .bind("reason", r.reason()).bind("id", r.id())
                .mapTo(String.class).findOne().orElse(null);
        if (state == null) {
            return false;
        }
        history(handle, r.id(), now, "retry_later", batchId, null, null, r.reason());
        if (state.equals("parked")) {
            history(handle, r.id(), now, "parked", batchId, null, null,
                    "after " + maxAttempts + " retry_later answers from central");
            return true;
        }
        return false;
    }

    private static void applyRelease(Handle handle, Settlement.Release r, long now, String batchId) {
        int n = handle.createUpdate("""
                UPDATE commands SET state = 'pending', claimed_at = NULL, last_error = :reason
                WHERE id = :id AND state = 'inflight'""")
                .bind("reason", r.reason()).bind("id", r.id()).execute();
        if (n == 1) {
            history(handle, r.id(), now, "released", batchId, null, null, r.reason());
        }
    }

    /** @param finals commands that became final, with their receipts; @param parked how many were parked */
    public record SettleResult(List<CommandRecord> finals, int parked) {}

    private static void history(Handle handle, long id, long at, String kind, String batchId, String status, String code,
            String detail) {
        handle.createUpdate("""
                INSERT INTO command_history (command, at, kind, batch_id, status, code, detail)
                VALUES (:id, :at, :kind, :b, :status, :code, :detail)""")
                .bind("id", id).bind("at", at).bind("kind", kind).bind("b", batchId).bind("status", status)
                .bind("code", code).bind("detail", detail)
                .execute();
    }

    private static List<CommandRecord> byIds(Handle handle, List<Long> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        return handle.createQuery("SELECT " + RECORD_COLUMNS + " FROM commands WHERE id IN (<ids>) ORDER BY id")
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
        return jdbi.withHandle(handle -> handle.createQuery("SELECT " + RECORD_COLUMNS
                        + " FROM commands WHERE receipt_published = 0 AND state IN " + FINAL_STATES + " ORDER BY id LIMIT :limit")
                .bind("limit", limit)
                .map(Outbox::mapRecord)
                .list());
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
            List<Long> ids = handle.createQuery("SELECT id FROM commands WHERE state = 'inflight'")
                    .mapTo(Long.class).list();
            for (long id : ids) {
                history(handle, id, now, "released", null, null, null, "claimed by a request that never completed");
            }
            handle.createUpdate("""
                    UPDATE commands SET state = 'pending', claimed_at = NULL,
                           last_error = 'released at start-up: its request never completed'
                    WHERE state = 'inflight'""").execute();
            return ids.size();
        });
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
            Optional<Instant> oldest = handle.createQuery(
                    "SELECT MIN(received_at) FROM commands WHERE state IN " + OPEN_STATES)
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

    /** Folds the write-ahead log into the database file; the outbox stays usable (connections are per call). */
    public void close() {
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
