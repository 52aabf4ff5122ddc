package org.edgebridge.outbox;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.edgebridge.intake.TestHashes;
import org.flywaydb.core.Flyway;
import org.sqlite.SQLiteDataSource;

/**
 * Builds outbox files in any state for tests, through the real {@link Outbox} and its migrations: no test writes the
 * schema or its rows by hand. Few rows go the product's own way (store, claim, settle), so their history is what the
 * bridge would have written; many rows (a backlog, old final rows for retention) go through {@link BulkLoader}.
 * A bridge can open the file afterwards: {@link #close()} closes the outbox first.
 *
 * <p>The states that need a claim ({@link #inflight}, {@link #finalRow}, {@link #parked}) claim only the rows they have
 * just stored, and fail if another pending row was due: build them before the pending rows of a test.
 */
public final class OutboxFixture implements AutoCloseable {
    /** A claim's event size for storage tests: the payload and 400 bytes (the forwarder measures the JSON it sends). */
    public static final WireSize ROUGH_SIZE = (clientId, commandId, type, topic, payloadBytes) -> payloadBytes + 400L;

    private Outbox outbox; // opened again after a bulk load, which writes past it
    private final Clock clock;
    private int claims;
    private String lastClaim;

    private OutboxFixture(Outbox outbox, Clock clock) {
        this.outbox = outbox;
        this.clock = clock;
    }

    /** Opens (creating and migrating if needed) the outbox file at {@code file}. */
    public static OutboxFixture at(Path file) {
        return at(file, Clock.systemUTC());
    }

    public static OutboxFixture at(Path file, Clock clock) {
        return new OutboxFixture(Outbox.open(file, clock), clock);
    }

    /** An outbox file left at an older schema {@code version} ("1", "2"…) by the real migrations, with no rows. */
    public static Path atSchemaVersion(Path file, String version) {
        SQLiteDataSource dataSource = new SQLiteDataSource();
        dataSource.setUrl("jdbc:sqlite:" + file.toAbsolutePath());
        Flyway.configure()
                .dataSource(dataSource)
                .locations("classpath:db/migration")
                .target(version)
                .load()
                .migrate();
        return file;
    }

    /** A copy at {@code file} of an outbox file kept in the test resources {@code outbox-fixtures/}. */
    public static Path copyOfResource(String name, Path file) {
        try (InputStream in = OutboxFixture.class.getResourceAsStream("/outbox-fixtures/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("no test resource outbox-fixtures/" + name);
            }
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.copy(in, file);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The outbox as it is now (a new instance after {@link #oldFinalRows} or {@link #backlog}). */
    public Outbox outbox() {
        return outbox;
    }

    /** Writes with {@link BulkLoader} and opens the outbox again, so that it counts the new rows as a bridge would. */
    private long bulkLoad(java.util.stream.Stream<NewCommand> commands, CommandState state, Instant finalAt) {
        long written = BulkLoader.load(outbox.file(), commands, state, finalAt);
        outbox.close();
        outbox = Outbox.open(outbox.file(), clock);
        return written;
    }

    /** A command as a device sends it: {@code {"commandId":ID}}, padded with {@code padBytes} characters. */
    public static NewCommand command(String device, String commandId, int padBytes, Instant receivedAt) {
        String pad = padBytes == 0 ? "" : ",\"pad\":\"" + "x".repeat(padBytes) + "\"";
        byte[] payload = ("{\"commandId\":\"" + commandId + "\"" + pad + "}").getBytes(StandardCharsets.UTF_8);
        return new NewCommand(
                device,
                commandId,
                "devices/" + device + "/commands/t",
                "t",
                payload,
                TestHashes.sha256(payload),
                receivedAt);
    }

    /** Stores {@code count} commands {@code idPrefix1}… of one device, as intake does: pending. */
    public List<CommandRecord> pending(String device, String idPrefix, int count) {
        return pending(device, idPrefix, count, 0);
    }

    /** {@link #pending(String, String, int)} with payloads padded by {@code padBytes}; stored 50 to a transaction. */
    public List<CommandRecord> pending(String device, String idPrefix, int count, int padBytes) {
        return store(IntStream.rangeClosed(1, count)
                .mapToObj(i -> command(device, idPrefix + i, padBytes, clock.instant()))
                .toList());
    }

    private List<CommandRecord> store(List<NewCommand> commands) {
        List<CommandRecord> stored = new ArrayList<>(commands.size());
        for (int start = 0; start < commands.size(); start += 50) {
            for (StoreResult r : outbox.store(commands.subList(start, Math.min(commands.size(), start + 50)))) {
                if (!(r instanceof StoreResult.Stored s)) {
                    throw new IllegalStateException("not stored: " + r);
                }
                stored.add(s.record());
            }
        }
        return stored;
    }

    /** Stores {@code count} commands {@code idPrefix1}… and claims them for one request, {@code fixture-claim-N}. */
    public List<ClaimedEvent> inflight(String device, String idPrefix, int count) {
        return claimed(IntStream.rangeClosed(1, count)
                .mapToObj(i -> command(device, idPrefix + i, 0, clock.instant()))
                .toList());
    }

    private List<ClaimedEvent> claimed(List<NewCommand> commands) {
        List<CommandRecord> stored = store(commands);
        Set<Long> ids = stored.stream().map(CommandRecord::id).collect(Collectors.toSet());
        lastClaim = "fixture-claim-" + ++claims;
        List<ClaimedEvent> claimed = outbox.claim(
                ids.size(),
                Integer.MAX_VALUE,
                ROUGH_SIZE,
                stored.get(stored.size() - 1).id(),
                lastClaim);
        if (claimed.size() != ids.size() || !claimed.stream().allMatch(e -> ids.contains(e.id()))) {
            throw new IllegalStateException("the claim took other rows than the new ones: build claimed states first");
        }
        return claimed;
    }

    /** One command with central's final answer {@code status} (accepted, duplicate, rejected), receipt not published. */
    public CommandRecord finalRow(String device, String commandId, CommandState status) {
        ClaimedEvent e =
                claimed(List.of(command(device, commandId, 0, clock.instant()))).get(0);
        String code = status == CommandState.REJECTED ? "fixture_rejected" : null;
        ForwarderOutbox.SettleResult r = outbox.settle(
                lastClaim,
                List.of(new Settlement.Final(
                        e.id(),
                        status,
                        code,
                        status == CommandState.REJECTED ? "rejected by the fixture" : null,
                        "{\"fixture\":true}")),
                50);
        return r.finals().get(0);
    }

    /** One command parked with {@code code}: only an admin moves it on. */
    public CommandRecord parked(String device, String commandId, String code) {
        ClaimedEvent e =
                claimed(List.of(command(device, commandId, 0, clock.instant()))).get(0);
        outbox.settle(lastClaim, List.of(new Settlement.Park(e.id(), code, "parked by the fixture")), 50);
        return outbox.find(device, e.commandId()).orElseThrow();
    }

    /**
     * {@code rows} accepted commands {@code OLD-1}… of one device that became final {@code age} ago, their receipts
     * published: what retention purges.
     */
    public long oldFinalRows(String device, int rows, Duration age) {
        Instant finalAt = clock.instant().minus(age);
        return bulkLoad(
                IntStream.rangeClosed(1, rows).mapToObj(i -> command(device, "OLD-" + i, 0, finalAt.minusSeconds(1))),
                CommandState.ACCEPTED,
                finalAt);
    }

    /**
     * {@code rows} commands {@code idPrefix0}… spread round-robin over {@code devices} devices {@code dev-0}…, in one
     * state (a final state became final now, receipt published). Each device's sequence goes on from its last.
     */
    public long backlog(String idPrefix, int devices, int rows, CommandState state) {
        Instant now = clock.instant();
        return bulkLoad(
                IntStream.range(0, rows).mapToObj(i -> command("dev-" + i % devices, idPrefix + i, 0, now)),
                state,
                now);
    }

    /** Closes the outbox (the file stays), so that a bridge can open it. */
    @Override
    public void close() {
        outbox.close();
    }
}
