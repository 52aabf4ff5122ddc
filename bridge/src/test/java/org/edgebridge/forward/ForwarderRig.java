package org.edgebridge.forward;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.edgebridge.TestClock;
import org.edgebridge.central.CentralSim;
import org.edgebridge.config.ConfigLoader;
import org.edgebridge.intake.TestHashes;
import org.edgebridge.outbox.CommandRecord;
import org.edgebridge.outbox.NewCommand;
import org.edgebridge.outbox.Outbox;
import org.edgebridge.receipt.ReceiptFigures;
import org.edgebridge.receipt.ReceiptSender;
import org.edgebridge.worker.Workers;

/**
 * A forwarder that is not started, for tests that run its steps on their own thread: a real outbox on a temp SQLite
 * file, the reference central on port 0 (or any URL), a {@link TestClock} that the rate limiters' waits move instead
 * of sleeping, and the receipts the broker would have been handed.
 */
final class ForwarderRig implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    final TestClock clock = new TestClock();
    final CentralSim central;
    final Outbox outbox;
    final Forwarder forwarder;
    final List<Duration> rateLimitWaits = new ArrayList<>();
    private final List<JsonNode> published = new ArrayList<>();

    /** @param sets config overrides on top of fast test defaults */
    ForwarderRig(Path dir, String... sets) {
        this(dir, 1 << 24, sets);
    }

    ForwarderRig(Path dir, long centralMaxRequestBytes, String... sets) {
        this.central = new CentralSim(Optional.empty(), centralMaxRequestBytes, clock).start("127.0.0.1", 0);
        this.outbox = Outbox.open(dir.resolve("outbox.db"), clock);
        List<String> all = new ArrayList<>(List.of(
                "ingest.url=http://127.0.0.1:" + central.port() + "/ingest",
                "ingest.timeout=10s",
                "forwarder.backoffInitial=100ms",
                "forwarder.backoffMax=1s",
                "forwarder.authRetryInterval=5s",
                "forwarder.breakerOpenFor=10s",
                "forwarder.requestsPerSecond=100000",
                "forwarder.eventsPerSecond=1000000",
                "forwarder.maxAttempts=3",
                "forwarder.maxServerErrors=2"));
        all.addAll(List.of(sets));
        ReceiptSender receipts = new ReceiptSender(
                (clientId, json) -> {
                    synchronized (published) {
                        published.add(read(json));
                    }
                    return true;
                },
                new ReceiptFigures(new SimpleMeterRegistry(), clock));
        this.forwarder = new Forwarder(
                ConfigLoader.load(null, all).forwarder(),
                outbox,
                receipts,
                () -> Long.MAX_VALUE,
                clock,
                new Workers(() -> {}),
                new SimpleMeterRegistry(),
                d -> {
                    rateLimitWaits.add(d);
                    clock.advance(d);
                },
                null,
                null);
    }

    private static JsonNode read(byte[] json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stores one command of {@code device}; {@code body} is more JSON members (",\"x\":1") or empty. */
    void store(String device, String commandId, String body) {
        byte[] payload = ("{\"commandId\":\"" + commandId + "\"" + body + "}").getBytes(StandardCharsets.UTF_8);
        outbox.store(List.of(new NewCommand(
                device,
                commandId,
                "devices/" + device + "/commands/t",
                "t",
                payload,
                TestHashes.sha256(payload),
                clock.instant())));
    }

    StepResult step() {
        return forwarder.forwardOnce();
    }

    /** Steps until one sends nothing; @return how many sent */
    int drain() {
        int sent = 0;
        while (step() instanceof StepResult.Sent) {
            sent++;
        }
        return sent;
    }

    /**
     * Runs steps as the loop would, moving the clock instead of waiting (by a held step's wait, by backoffMax
     * after an idle one, so that per-event backoffs come due), until {@code done}; at most {@code maxSteps}.
     */
    void runUntil(java.util.function.BooleanSupplier done, int maxSteps) {
        for (int i = 0; i < maxSteps && !done.getAsBoolean(); i++) {
            StepResult r = step();
            if (r instanceof StepResult.Held held) {
                clock.advance(held.waitFor().plusMillis(1));
            } else if (r instanceof StepResult.Idle) {
                clock.advance(Duration.ofSeconds(1));
            }
        }
        if (!done.getAsBoolean()) {
            throw new AssertionError("not done after " + maxSteps + " steps; central saw " + central.requestLog());
        }
    }

    /**
     * Runs steps as the loop would, moving the clock, while device "n" sends one command every other step: the other
     * traffic that a suspect's failure is compared with (docs/forwarding.md, "Blame"); until {@code done}, at most
     * {@code maxSteps}.
     */
    void runWithNeighbour(java.util.function.BooleanSupplier done, int maxSteps) {
        for (int i = 0; i < maxSteps && !done.getAsBoolean(); i++) {
            if (i % 2 == 0) {
                store("n", "N-" + i, "");
            }
            StepResult r = step();
            clock.advance(r instanceof StepResult.Held held ? held.waitFor().plusMillis(1) : Duration.ofMillis(500));
        }
        if (!done.getAsBoolean()) {
            throw new AssertionError("not done within " + maxSteps + " steps; central saw " + central.requestLog());
        }
    }

    /** How often the command made central fail when it was sent alone (its "failed_alone" history). */
    long failedAlone(String device, String commandId) {
        return outbox.reads().history(record(device, commandId).id()).stream()
                .filter(h -> h.kind().equals("failed_alone"))
                .mapToLong(h -> h.times())
                .sum();
    }

    /**
     * Makes the outbox fail every write that sets a command's state to {@code state}, with {@code message} (a SQLite
     * trigger, as a full disk would fail it), until {@link #writesSucceed()}.
     */
    void failWritesTo(String state, String message) {
        sqlOnTheFile("CREATE TRIGGER test_fail BEFORE UPDATE OF state ON commands WHEN NEW.state = '" + state
                + "' BEGIN SELECT RAISE(ABORT, '" + message + "'); END");
    }

    void writesSucceed() {
        sqlOnTheFile("DROP TRIGGER test_fail");
    }

    /** Runs {@code sql} on the outbox's file on a connection of its own, as another process would. */
    void sqlOnTheFile(String sql) {
        try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + outbox.file());
                Statement s = db.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    CommandRecord record(String device, String commandId) {
        return outbox.find(device, commandId).orElseThrow();
    }

    ForwarderStatus status() {
        return forwarder.status();
    }

    /** The final receipts handed to the broker for a command, in order (status names). */
    List<String> finalsOf(String commandId) {
        synchronized (published) {
            return published.stream()
                    .filter(r -> r.path("commandId").asText().equals(commandId)
                            && r.path("final").asBoolean())
                    .map(r -> r.path("status").asText())
                    .toList();
        }
    }

    JsonNode lastReceiptOf(String commandId) {
        synchronized (published) {
            return published.stream()
                    .filter(r -> r.path("commandId").asText().equals(commandId))
                    .reduce((a, b) -> b)
                    .orElseThrow();
        }
    }

    /** Moves the clock past the next attempt the forwarder waits for, if any. */
    void waitOutNextAttempt() {
        Optional<Instant> next = status().nextAttemptAt();
        next.ifPresent(at -> clock.advance(Duration.between(clock.instant(), at).plusMillis(1)));
    }

    @Override
    public void close() {
        forwarder.close(Duration.ofSeconds(1));
        outbox.close();
        central.close();
    }
}
