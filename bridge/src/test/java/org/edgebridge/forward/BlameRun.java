package org.edgebridge.forward;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.edgebridge.TestClock;
import org.edgebridge.config.BridgeConfig;
import org.edgebridge.config.ConfigLoader;
import org.edgebridge.intake.TestHashes;
import org.edgebridge.outbox.CommandRecord;
import org.edgebridge.outbox.CommandState;
import org.edgebridge.outbox.NewCommand;
import org.edgebridge.outbox.Outbox;
import org.edgebridge.outbox.StoreResult;
import org.edgebridge.receipt.ReceiptFigures;
import org.edgebridge.receipt.ReceiptSender;
import org.edgebridge.worker.Workers;

/**
 * Runs one {@link BlameScenario} through the real forwarder (its steps, classifier, policy, guards and settler, a real
 * SQLite outbox in a temp dir) against a {@link ScriptedCentral} on a moved clock, with the shipped defaults (only the
 * rate limits are raised: the simulation moves its clock, their permits run on the wall clock), and checks the blame
 * invariants of docs/forwarding.md against the scenario's ground truth. Returns what it found, empty when nothing.
 */
final class BlameRun {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** I3: no step holds the forwarder longer than this many ingest.timeout. */
    static final int STEP_TIMEOUTS = 2;
    /** I2: a poison is parked within this long of central turning healthy (with a neighbour sending now and then). */
    static final Duration POISON_BOUND = Duration.ofMinutes(40);

    /** Of all cases run, the longest from central turning healthy to a poison parked (ms), for the docs. */
    static final AtomicLong LONGEST_PARK = new AtomicLong();
    /** Of all cases run, the longest step (ms). */
    static final AtomicLong LONGEST_STEP = new AtomicLong();

    /**
     * I2, the site keeps flowing: of the commands that arrive once central is healthy (only poisons fail then) and the
     * request backoff of the outage before has surely ended ({@link #BACKOFF_ENDED}), on devices with no poison, half
     * are final within this long of their arrival, however many poisons hang.
     */
    static final Duration INNOCENT_MEDIAN_BOUND = Duration.ofSeconds(5);
    /** After central turned healthy: twice forwarder.backoffMax, by when no request backoff of the outage is left. */
    static final Duration BACKOFF_ENDED = Duration.ofMinutes(2);
    /** -Dblame.probeInline=true sends the probe before the main request on the step's thread (as before 2026-12-06). */
    private static final boolean PROBE_INLINE = Boolean.getBoolean("blame.probeInline");
    /** Of all cases run, the highest median and the longest wait of the innocent commands of I2 (ms), for the docs. */
    static final AtomicLong HIGHEST_INNOCENT_MEDIAN = new AtomicLong();

    static final AtomicLong LONGEST_INNOCENT_WAIT = new AtomicLong();

    /** The longest the simulation lets an idle forwarder wait before its next step. */
    private static final Duration IDLE_STEP = Duration.ofSeconds(5);

    private final BlameScenario scenario;
    private final Path dir;
    private final TestClock clock = new TestClock(BlameScenario.START);
    private final Map<String, List<String>> finals = new HashMap<>();
    /** When each command's first final receipt was handed to the broker. */
    private final Map<String, Instant> finalAt = new HashMap<>();

    private SimulatedProbeSlot probeSlot;
    private String innocentFigures = "no commands of devices with no poison once central was healthy";

    /** The innocents' waits of I2, once {@link #run} has checked. */
    String innocentFigures() {
        return innocentFigures;
    }

    private final List<String> found = new ArrayList<>();
    private final Map<String, Instant> parkedAt = new HashMap<>();
    /** Each poison's device. */
    private final Map<String, String> poisonDevices = new HashMap<>();

    private Duration longestStep = Duration.ZERO;
    /** How many of the scenario's arrivals were delivered: all, unless the run ended once everything had settled. */
    private int delivered;
    /** When the run last looked whether everything had settled. */
    private Instant lookedAt = BlameScenario.START;
    /** Each command's expiresAt, as the scenario gave it. */
    private final Map<String, Optional<Instant>> expiresAt = new HashMap<>();
    /** Commands whose expiresAt had passed when they arrived: never stored, by design. */
    private final Set<String> expiredOnArrival = new HashSet<>();

    private Outbox outbox;
    private Forwarder forwarder;
    private final ScriptedCentral central;
    private final BridgeConfig config;

    BlameRun(BlameScenario scenario, Path dir) {
        this.scenario = scenario;
        scenario.arrivals().stream()
                .filter(a -> scenario.poisons().containsKey(a.commandId()))
                .forEach(a -> poisonDevices.put(a.commandId(), a.device()));
        this.dir = dir;
        scenario.arrivals().forEach(a -> expiresAt.put(a.commandId(), a.expiresAt()));
        this.config = ConfigLoader.load(
                null,
                List.of(
                        "ingest.url=http://127.0.0.1:9/ingest",
                        "forwarder.requestsPerSecond=100000",
                        "forwarder.eventsPerSecond=1000000"));
        this.central = new ScriptedCentral(
                scenario, clock, config.forwarder().requests().timeout());
    }

    List<String> run() {
        outbox = Outbox.open(dir.resolve("outbox.db"), clock);
        forwarder = newForwarder();
        try {
            int next = 0;
            int restart = 0;
            List<BlameScenario.Arrival> arrivals = scenario.arrivals();
            delivered = arrivals.size();
            long steps = 0;
            while (clock.instant().isBefore(scenario.end())) {
                List<NewCommand> due = new ArrayList<>();
                while (next < arrivals.size() && !arrivals.get(next).at().isAfter(clock.instant())) {
                    due.add(command(arrivals.get(next++)));
                }
                if (!due.isEmpty()) {
                    for (StoreResult x : outbox.store(due)) {
                        if (x instanceof StoreResult.Expired) {
                            expiredOnArrival.add(x.command().commandId());
                        } else if (!(x instanceof StoreResult.Stored)) {
                            found.add("I4: " + x.command().commandId() + " not stored: " + x);
                        }
                    }
                }
                if (restart < scenario.restarts().size()
                        && !scenario.restarts().get(restart).at().isAfter(clock.instant())) {
                    restart(scenario.restarts().get(restart++).graceful());
                }
                Instant before = clock.instant();
                StepResult r = forwarder.forwardOnce();
                steps++;
                Duration took = Duration.between(before, clock.instant());
                if (took.compareTo(longestStep) > 0) {
                    longestStep = took;
                }
                if (r instanceof StepResult.Sent) {
                    noteParked();
                }
                Duration wait = r.waitFor().compareTo(ForwarderLoop.LONGEST_WAIT) > 0
                        ? ForwarderLoop.LONGEST_WAIT
                        : r.waitFor();
                Optional<Instant> probeDone = probeSlot.doneAt();
                if (r.endsOnWake()) {
                    // idle: the loop would poll every 0.5 s and wake at a new command; the simulation steps at the next
                    // arrival or after IDLE_STEP (a pending event's own wait may then end up to that much later)
                    wait = IDLE_STEP;
                    if (next < arrivals.size()) {
                        Duration untilArrival = Duration.between(
                                clock.instant(), arrivals.get(next).at());
                        wait = untilArrival.compareTo(wait) < 0 ? untilArrival : wait;
                    }
                }
                if (probeDone.isPresent() && probeDone.get().isAfter(clock.instant())) { // the loop is woken then
                    Duration untilProbe = Duration.between(clock.instant(), probeDone.get());
                    wait = untilProbe.compareTo(wait) < 0 ? untilProbe : wait;
                }
                clock.advance(wait.isNegative() || wait.isZero() ? Duration.ofMillis(1) : wait);
                if (restart >= scenario.restarts().size() && settled()) {
                    delivered = next;
                    break;
                }
                if (steps > 2_000_000) {
                    found.add("the run did not end: over 2,000,000 steps");
                    break;
                }
            }
            check();
        } finally {
            forwarder.close(Duration.ofSeconds(1));
            outbox.close();
        }
        return found;
    }

    /**
     * Whether nothing can change any more, looked at once a simulated minute from a minute after central turned
     * healthy: every command is final or parked, but those that wait behind a parked one of their device (a device's
     * commands go in order). The run ends there; what is checked afterwards would be the same at the scenario's end.
     */
    private boolean settled() {
        Instant now = clock.instant();
        if (now.isBefore(scenario.healthyFrom().plusSeconds(60)) || now.isBefore(lookedAt.plusSeconds(60))) {
            return false;
        }
        lookedAt = now;
        if (!outbox.reads().list(CommandState.INFLIGHT, null, 0, 1, false).isEmpty()) {
            return false;
        }
        Map<String, Long> firstParked = new HashMap<>();
        for (CommandRecord p : outbox.reads().list(CommandState.PARKED, null, 0, 10_000, false)) {
            firstParked.merge(p.clientId(), p.sequence(), Math::min);
        }
        for (CommandRecord p : outbox.reads().list(CommandState.PENDING, null, 0, 10_000, false)) {
            Long parked = firstParked.get(p.clientId());
            Optional<Instant> expires = expiresAt.getOrDefault(p.commandId(), Optional.empty());
            if (parked == null
                    || parked > p.sequence()
                    || expires.isPresent() && expires.get().isAfter(now)) {
                return false; // it may still go, or expire
            }
        }
        return true;
    }

    private Forwarder newForwarder() {
        ReceiptSender receipts = new ReceiptSender(
                (clientId, json) -> {
                    JsonNode r = read(json);
                    if (r.path("final").asBoolean()) {
                        finalAt.putIfAbsent(r.path("commandId").asText(), clock.instant());
                        finals.computeIfAbsent(r.path("commandId").asText(), k -> new ArrayList<>())
                                .add(r.path("status").asText() + "/"
                                        + r.path("code").asText(""));
                    }
                    return true;
                },
                new ReceiptFigures(new SimpleMeterRegistry(), clock));
        probeSlot = new SimulatedProbeSlot(clock, central, !PROBE_INLINE);
        return new Forwarder(
                config.forwarder(),
                outbox,
                receipts,
                () -> Long.MAX_VALUE,
                clock,
                new Workers(() -> {}),
                new SimpleMeterRegistry(),
                clock::advance,
                central,
                probeSlot);
    }

    /** kill -9: the forwarder and the outbox are dropped as they are; SIGTERM: closed. Then started again. */
    private void restart(boolean graceful) {
        if (graceful) {
            forwarder.close(Duration.ofSeconds(1));
        }
        outbox.close();
        outbox = Outbox.open(dir.resolve("outbox.db"), clock);
        outbox.releaseAbandonedClaims();
        forwarder = newForwarder();
    }

    private NewCommand command(BlameScenario.Arrival a) {
        byte[] payload = ("{\"commandId\":\"" + a.commandId() + "\"}").getBytes(StandardCharsets.UTF_8);
        return new NewCommand(
                a.device(),
                a.commandId(),
                "devices/" + a.device() + "/commands/t",
                "t",
                payload,
                TestHashes.sha256(payload),
                clock.instant(),
                a.expiresAt());
    }

    /** When each poison was parked or became final: looked at after every step that sent something. */
    private void noteParked() {
        for (Map.Entry<String, String> p : poisonDevices.entrySet()) {
            if (!parkedAt.containsKey(p.getKey())) {
                outbox.find(p.getValue(), p.getKey())
                        .filter(c ->
                                c.state() == CommandState.PARKED || c.state().isFinal())
                        .ifPresent(c -> parkedAt.put(p.getKey(), clock.instant()));
            }
        }
    }

    private void check() {
        LONGEST_STEP.accumulateAndGet(longestStep.toMillis(), Math::max);
        Duration stepBound = config.forwarder()
                .requests()
                .timeout()
                .multipliedBy(STEP_TIMEOUTS)
                .plusSeconds(1);
        if (longestStep.compareTo(stepBound) > 0) {
            found.add("I3: a step held the forwarder " + longestStep.toMillis() + " ms (bound " + stepBound.toMillis()
                    + ")");
        }
        Map<String, Long> firstPoison = new HashMap<>(); // per device, the sequence of its first poison
        for (BlameScenario.Arrival a : scenario.arrivals()) {
            if (scenario.poisons().containsKey(a.commandId())) {
                outbox.find(a.device(), a.commandId())
                        .ifPresent(c -> firstPoison.merge(a.device(), c.sequence(), Math::min));
            }
        }
        for (BlameScenario.Arrival a : scenario.arrivals().subList(0, delivered)) {
            if (expiredOnArrival.contains(a.commandId())) {
                continue;
            }
            Optional<CommandRecord> row = outbox.find(a.device(), a.commandId());
            if (row.isEmpty()) {
                found.add("I4: " + a.commandId() + " was never stored");
                continue;
            }
            CommandRecord c = row.get();
            boolean poison = scenario.poisons().containsKey(a.commandId());
            boolean blamed = c.state() == CommandState.PARKED
                    || c.state() == CommandState.REJECTED
                            && c.code() != null
                            && c.code().startsWith("ingest_");
            if (blamed && !poison) {
                found.add("I1: " + a.commandId() + " was " + c.state().dbName() + " (" + c.code() + ": " + c.lastError()
                        + ") though it is no poison");
            }
            boolean expired = c.state() == CommandState.REJECTED && "expired".equals(c.code());
            if (expired && central.received.contains(a.device() + "/" + a.commandId())) {
                found.add("I5: " + a.commandId() + " expired here though central had received it");
            }
            boolean behindPoison = firstPoison.containsKey(a.device()) && c.sequence() > firstPoison.get(a.device());
            if (!poison && !c.state().isFinal() && !behindPoison) {
                found.add("I4: " + a.commandId() + " of " + a.device() + " is still "
                        + c.state().dbName()
                        + " at the end ("
                        + c.lastError() + ")");
            }
            if (poison && !blamed && !c.state().isFinal() && !behindPoison) {
                found.add("I2: poison " + a.commandId() + " ("
                        + scenario.poisons().get(a.commandId()) + ") is still "
                        + c.state().dbName() + " at the end (" + c.lastError() + ")");
            }
            if (poison && parkedAt.containsKey(a.commandId())) {
                LONGEST_PARK.accumulateAndGet(
                        Math.max(
                                0,
                                Duration.between(scenario.healthyFrom(), parkedAt.get(a.commandId()))
                                        .toMillis()),
                        Math::max);
            }
            if (poison
                    && parkedAt.containsKey(a.commandId())
                    && Duration.between(scenario.healthyFrom(), parkedAt.get(a.commandId()))
                                    .compareTo(POISON_BOUND)
                            > 0) {
                found.add("I2: poison " + a.commandId() + " was parked "
                        + Duration.between(scenario.healthyFrom(), parkedAt.get(a.commandId()))
                                .toSeconds() + " s after central turned healthy (bound "
                        + POISON_BOUND.toSeconds() + " s)");
            }
            List<String> told = finals.getOrDefault(a.commandId(), List.of());
            if (told.stream().distinct().count() > 1) {
                found.add("I4: " + a.commandId() + " got final receipts that differ: " + told);
            }
            if (c.state() == CommandState.ACCEPTED && !central.applied.containsKey(a.device() + "/" + a.commandId())) {
                found.add("I4: " + a.commandId() + " is accepted here but central never applied it");
            }
        }
        found.addAll(
                central.orderViolations.stream().map(v -> "I4: order: " + v).toList());
        checkInnocentsFlow();
        ForwarderStatus status = forwarder.status();
        if (status.consecutiveFailures() >= 3 || status.circuitBreaker().equals("open")) {
            found.add("status: central healthy for " + BlameScenario.TAIL.toMinutes()
                    + " min, yet the status says it fails ("
                    + status.consecutiveFailures() + " failed requests in a row, breaker " + status.circuitBreaker()
                    + ", "
                    + status.lastError().orElse("") + ")");
        }
    }

    /** I2: the commands of devices with no poison that arrive once central is healthy are not held by the poisons. */
    private void checkInnocentsFlow() {
        Set<String> poisoned = new HashSet<>(poisonDevices.values());
        List<Long> waits = new ArrayList<>();
        for (BlameScenario.Arrival a : scenario.arrivals().subList(0, delivered)) {
            Instant done = finalAt.get(a.commandId());
            if (!a.at().isBefore(scenario.healthyFrom().plus(BACKOFF_ENDED))
                    && !poisoned.contains(a.device())
                    && done != null) {
                waits.add(Duration.between(a.at(), done).toMillis());
            }
        }
        if (waits.isEmpty()) {
            return;
        }
        waits.sort(null);
        long median = waits.get(waits.size() / 2);
        long longest = waits.get(waits.size() - 1);
        innocentFigures = String.format(
                "%d commands of devices with no poison once central was healthy (from 2 min on): "
                        + "publish->final median %d ms, p99 %d ms, longest %d ms",
                waits.size(), median, waits.get(waits.size() * 99 / 100), longest);
        HIGHEST_INNOCENT_MEDIAN.accumulateAndGet(median, Math::max);
        LONGEST_INNOCENT_WAIT.accumulateAndGet(longest, Math::max);
        if (median > INNOCENT_MEDIAN_BOUND.toMillis()) {
            found.add("I2: the poisons held the site: of " + waits.size() + " commands of other devices sent while "
                    + "central was healthy (from 2 min on), half waited over " + median
                    + " ms for their final receipt (bound "
                    + INNOCENT_MEDIAN_BOUND.toMillis() + " ms; longest " + longest + " ms)");
        }
    }

    private static JsonNode read(byte[] json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A fresh directory for a run. */
    static Path newDir(Path parent, long seed) {
        try {
            return Files.createDirectories(parent.resolve("seed-" + seed));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
