package org.edgebridge.faults;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.function.IntPredicate;
import org.awaitility.core.ConditionTimeoutException;
import org.edgebridge.central.CentralSim;
import org.edgebridge.central.Faults;
import org.edgebridge.device.DeviceSimulator;

/**
 * Every fault the suite plays on a running site, each real: the bridge process, the two network links (through
 * {@link TcpProxy}s), the reference central, and the outbox's disk. Each method plays one fault for its
 * window, heals it, and says what it saw ({@link Observation}); "bites" counts the evidence that the fault
 * really hit the bridge (requests answered with it, connections cut, retry_later receipts...), so a fault that
 * silently did nothing fails the run.
 */
final class SiteFaults {
    /**
     * What one playing of a fault showed: how much evidence that it bit, what was seen, and a wrong the bridge
     * did while it lasted (null if none), such as a SIGTERM exit code other than 0/143, devices not back, or
     * {@code /health/ready} saying ready on a full disk.
     */
    record Observation(Fault fault, long bites, String detail, String problem) {
        Observation(Fault fault, long bites, String detail) {
            this(fault, bites, detail, null);
        }
    }

    /** The faults, in the words of the fault matrix (docs/fault-injection.md). */
    enum Fault {
        KILL_9("bridge killed with kill -9 at a random moment, restarted"),
        SIGTERM_RESTART("bridge stopped with SIGTERM, restarted"),
        DEVICE_LINK_CUT("every device connection reset at once"),
        DEVICE_LINK_BLACK_HOLE("device link passes no bytes for 12 s (keep-alive 5 s)"),
        CENTRAL_LINK_REFUSED("central unreachable: connections reset for 4 s"),
        CENTRAL_LINK_BLACK_HOLE("central link passes no bytes for 12 s (ingest.timeout 10 s)"),
        CENTRAL_503("central answers 503 with Retry-After: 1 for 3 s"),
        CENTRAL_429("central answers 429 with Retry-After as an HTTP date for 3 s"),
        CENTRAL_500("central answers 500 for 3 s"),
        CENTRAL_SLOW("central holds each reply 2.5 s for 5 s"),
        CENTRAL_LOST_REPLY("central applies, then the reply is lost (500) for 3 s"),
        CENTRAL_RETRY_LATER("central answers retry_later per event (retryAfterMs 300) for 3 s"),
        CENTRAL_401("central answers 401 for 4 s (a revoked token)"),
        DISK_FULL(
                "outbox file system full (ENOSPC) for 6 s after the first retry_later, with an answer of central arriving");

        final String how;

        Fault(String how) {
            this.how = how;
        }
    }

    /** How long a fault is played past its window while it has not bitten yet. */
    private static final Duration BITE_WAIT = Duration.ofSeconds(30);

    private final BridgeLives bridge;
    private final CentralSim central;
    private final TcpProxy deviceLink;
    private final TcpProxy centralLink;
    private final OutboxDisk disk;
    private final DeviceFleet fleet;

    SiteFaults(
            BridgeLives bridge,
            CentralSim central,
            TcpProxy deviceLink,
            TcpProxy centralLink,
            OutboxDisk disk,
            DeviceFleet fleet) {
        this.bridge = bridge;
        this.central = central;
        this.deviceLink = deviceLink;
        this.centralLink = centralLink;
        this.disk = disk;
        this.fleet = fleet;
    }

    Observation play(Fault fault) throws Exception {
        return switch (fault) {
            case KILL_9 -> kill9(Duration.ofMillis(500));
            case SIGTERM_RESTART -> sigtermRestart();
            case DEVICE_LINK_CUT -> deviceLinkCut();
            case DEVICE_LINK_BLACK_HOLE -> deviceLinkBlackHole();
            case CENTRAL_LINK_REFUSED -> centralLink(fault, false, Duration.ofSeconds(4));
            case CENTRAL_LINK_BLACK_HOLE -> centralLink(fault, true, Duration.ofSeconds(12));
            case CENTRAL_503 -> centralAnswers(fault, Faults.status(503, 1, -1), Duration.ofSeconds(3), s -> s == 503);
            case CENTRAL_429 ->
                centralAnswers(
                        fault, new Faults("status", 429, 2, true, 0, 0, -1), Duration.ofSeconds(3), s -> s == 429);
            case CENTRAL_500 ->
                centralAnswers(fault, Faults.status(500, null, -1), Duration.ofSeconds(3), s -> s == 500);
            case CENTRAL_SLOW ->
                centralAnswers(
                        fault,
                        new Faults("hold_reply", 0, null, false, 0, 2_500, -1),
                        Duration.ofSeconds(5),
                        s -> s == 200);
            case CENTRAL_LOST_REPLY ->
                centralAnswers(fault, Faults.of("lose_reply", -1), Duration.ofSeconds(3), s -> s == 500);
            case CENTRAL_RETRY_LATER ->
                centralAnswers(
                        fault,
                        new Faults("retry_later", 0, null, false, 300, 0, -1),
                        Duration.ofSeconds(3),
                        s -> s == 200);
            case CENTRAL_401 ->
                centralAnswers(fault, Faults.status(401, null, -1), Duration.ofSeconds(4), s -> s == 401);
            case DISK_FULL -> diskFull();
        };
    }

    /** kill -9 now, down for {@code down}, then a new life. */
    Observation kill9(Duration down) throws InterruptedException {
        int life = bridge.life();
        long t0 = System.nanoTime();
        bridge.kill9AndRestart(down);
        List<Long> restarts = bridge.restartMillis();
        return new Observation(
                Fault.KILL_9,
                1,
                "life " + life + " killed " + millisSince(t0) + " ms ago; down " + down.toMillis() + " ms, then life "
                        + bridge.life() + " ready in " + restarts.get(restarts.size() - 1) + " ms");
    }

    private Observation sigtermRestart() throws InterruptedException {
        long t0 = System.nanoTime();
        int code = bridge.stopAndRestart();
        int life = bridge.life();
        boolean back = allDevicesConnected();
        long present = fleet.devices().stream()
                .flatMap(d -> d.connacks().stream()
                        .filter(a -> a.bridgeLife() == life)
                        .limit(1))
                .filter(DeviceSimulator.Connack::sessionPresent)
                .count();
        String problem = code != 0 && code != 143
                ? "SIGTERM exit code " + code
                : !back ? "devices not all back within 60 s of a clean restart" : null;
        return new Observation(
                Fault.SIGTERM_RESTART,
                1,
                "exit code " + code + "; restarted in "
                        + millisSince(t0) + " ms; " + (back ? "all " : "NOT all ")
                        + fleet.devices().size()
                        + " devices back, first CONNACK sessionPresent=1 for " + present,
                problem);
    }

    private Observation deviceLinkCut() {
        allDevicesConnected(); // a cut while the bridge restarts would cut nothing
        long t0 = System.nanoTime();
        int cut = deviceLink.cutAll();
        boolean back = allDevicesConnected();
        return new Observation(
                Fault.DEVICE_LINK_CUT,
                cut,
                cut + " connections reset; " + (back ? "all" : "NOT all") + " devices connected again after "
                        + millisSince(t0) + " ms",
                back ? null : "devices not all back within 60 s");
    }

    private Observation deviceLinkBlackHole() throws InterruptedException {
        allDevicesConnected();
        long lostBefore = fleet.counters().linksLost.sum();
        deviceLink.blackHole(true);
        FaultTiming.hold(FaultTiming.DEVICE_LINK_BLACK_HOLE); // the fault's length
        deviceLink.blackHole(false);
        long lost = fleet.counters().linksLost.sum() - lostBefore;
        long t0 = System.nanoTime();
        boolean back = allDevicesConnected();
        return new Observation(
                Fault.DEVICE_LINK_BLACK_HOLE,
                lost,
                lost + " device connections given up by keep-alive; " + (back ? "all" : "NOT all")
                        + " devices connected " + millisSince(t0) + " ms after the link healed",
                back ? null : "devices not all back within 60 s");
    }

    private Observation centralLink(Fault fault, boolean blackHole, Duration window) throws InterruptedException {
        long acceptedBefore = centralLink.accepted();
        if (blackHole) {
            centralLink.blackHole(true);
        } else {
            centralLink.refuse(true);
        }
        TreeSet<String> errors = new TreeSet<>();
        long failingPolls = pollStatus(window, BITE_WAIT, s -> {
            JsonNode f = s.path("forwarder");
            if (f.hasNonNull("lastError")) {
                errors.add(f.get("lastError").asText().replaceAll("\\d+", "N"));
            }
            return f.path("consecutiveFailures").asInt() > 0;
        });
        centralLink.heal();
        long connections = centralLink.accepted() - acceptedBefore;
        return new Observation(
                fault,
                failingPolls,
                "status polls showing failures: " + failingPolls + "; connections tried: " + connections
                        + "; forwarder errors: " + errors);
    }

    private Observation centralAnswers(Fault fault, Faults faults, Duration window, IntPredicate bit)
            throws InterruptedException {
        int before = central.requestLog().size();
        central.faults(faults);
        TreeSet<String> alarms = new TreeSet<>();
        pollStatus(window, BITE_WAIT, s -> {
            s.path("alarms").forEach(a -> alarms.add(a.path("code").asText()));
            return central.requestLog().subList(before, central.requestLog().size()).stream()
                    .anyMatch(r -> bit.test(r.status()));
        });
        central.faults(Faults.NONE);
        List<CentralSim.Request> during =
                central.requestLog().subList(before, central.requestLog().size());
        long bites = during.stream().filter(r -> bit.test(r.status())).count();
        return new Observation(
                fault,
                bites,
                during.size() + " requests in the window, " + bites + " answered as injected"
                        + (alarms.isEmpty() ? "" : "; alarms " + alarms));
    }

    /**
     * The outbox's disk full: first while central holds one reply, which is released once intake has refused a
     * command for lack of room, so that central's answer usually reaches the bridge on the full disk (whether
     * committing it fails depends on the pages SQLite can still reuse: it was kept uncommitted in every soak play
     * and in half the CI runs; the detail says). It bites when commands got retry_later from the outbox.
     */
    private Observation diskFull() throws Exception {
        return bridge.exclusively(() -> {
            Map<String, Long> before = fleet.counters().retryLater();
            // held at most 8 s: the bridge's ingest.timeout (10 s in the suite) must not end the request first
            central.faults(new Faults("hold_reply", 0, null, false, 0, 8_000, 1));
            boolean held = awaitQuietly(Duration.ofSeconds(30), () -> central.holdingReplies() > 0);
            disk.fill(0);
            boolean refused = awaitQuietly(Duration.ofSeconds(30), () -> diskCodes(before) > 0);
            central.releaseHeldReplies();
            central.faults(Faults.NONE);
            java.util.concurrent.atomic.AtomicLong unsettled = new java.util.concurrent.atomic.AtomicLong();
            TreeSet<String> alarms = new TreeSet<>();
            pollStatus(
                    Duration.ofSeconds(6),
                    Duration.ZERO,
                    s -> { // stays full this long after the first refusal
                        unsettled.accumulateAndGet(
                                s.path("forwarder").path("unsettledEvents").asLong(), Math::max);
                        s.path("alarms").forEach(a -> alarms.add(a.path("code").asText()));
                        return true;
                    });
            int readyWhileFull = bridge.ready();
            boolean alive = bridge.checkAlive();
            disk.restore();
            long t0 = System.nanoTime();
            boolean readyAgain = awaitQuietly(Duration.ofSeconds(30), () -> bridge.ready() == 200);
            long refusals = diskCodes(before);
            Map<String, Long> after = fleet.counters().retryLater();
            after.replaceAll((code, n) -> n - before.getOrDefault(code, 0L));
            String problem = !alive
                    ? "the bridge died on a full disk"
                    : readyWhileFull != 503
                            ? "/health/ready answered " + readyWhileFull + " while the outbox could not be written"
                            : !alarms.contains("outbox_unwritable")
                                    ? "no outbox_unwritable alarm while the disk was full"
                                    : !readyAgain ? "not ready within 30 s of the disk getting room again" : null;
            return new Observation(
                    Fault.DISK_FULL,
                    refusals,
                    "retry_later receipts " + after
                            + (refused ? "" : " (none within 30 s)") + "; central's answer kept uncommitted for "
                            + unsettled.get()
                            + " events" + (held ? "" : " (no request came to hold)") + "; /health/ready while full: "
                            + readyWhileFull
                            + ", alarms " + alarms + "; process " + (alive ? "alive" : "DIED") + "; ready again "
                            + (readyAgain ? "after " + millisSince(t0) + " ms" : "NOT within 30 s"),
                    problem);
        });
    }

    private long diskCodes(Map<String, Long> before) {
        Map<String, Long> now = fleet.counters().retryLater();
        return now.entrySet().stream()
                .filter(e -> e.getKey().startsWith("outbox_"))
                .mapToLong(e -> e.getValue() - before.getOrDefault(e.getKey(), 0L))
                .sum();
    }

    /**
     * Polls {@code /api/status} every 250 ms for {@code window}, and on for up to {@code orUntilHit} more while
     * {@code check} has not said true yet (a fault that met no traffic, e.g. while a kill -9 had the bridge down,
     * is played on until it bites).
     *
     * @return polls for which {@code check} said true
     */
    private long pollStatus(Duration window, Duration orUntilHit, java.util.function.Predicate<JsonNode> check) {
        long start = System.nanoTime();
        java.util.concurrent.atomic.AtomicLong hits = new java.util.concurrent.atomic.AtomicLong();
        awaitQuietly(
                window.plus(orUntilHit).plusSeconds(1),
                () -> {
                    JsonNode s = bridge.status();
                    if (s != null && check.test(s)) {
                        hits.incrementAndGet();
                    }
                    long elapsed = System.nanoTime() - start;
                    return elapsed >= window.toNanos()
                            && (hits.get() > 0
                                    || elapsed >= window.plus(orUntilHit).toNanos());
                },
                Duration.ofMillis(250));
        return hits.get();
    }

    private boolean allDevicesConnected() {
        return awaitQuietly(
                Duration.ofSeconds(60),
                () -> fleet.connected() == fleet.devices().size());
    }

    private static boolean awaitQuietly(Duration atMost, BooleanSupplier condition) {
        return awaitQuietly(atMost, condition, Duration.ofMillis(100));
    }

    private static boolean awaitQuietly(Duration atMost, BooleanSupplier condition, Duration pollInterval) {
        try {
            await().atMost(atMost).pollInterval(pollInterval).until(condition::getAsBoolean);
            return true;
        } catch (ConditionTimeoutException e) {
            return false;
        }
    }

    private static long millisSince(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }
}
