package org.edgebridge.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.edgebridge.Bridge;
import org.edgebridge.config.ConfigLoader;

/**
 * B3: a fixed offered rate against the default config, measured the way a site runs: the bridge as its own process
 * ({@code java -jar} with the service unit's JVM flags, {@link BridgeChild}), 20 devices, central in its own process
 * (optionally {@code centralDelayMs} away); latency from publish to {@code stored} and to the final receipt, at each
 * device, and the bridge process's CPU per final receipt over the measured window. {@code inProcess} runs the bridge
 * in the bench's JVM instead, for the trace ({@code -Dedgebridge.trace=true}: the bridge's step events, recorded with
 * JDK Flight Recorder by {@link StepRecording}, broken down by {@link LatencyBreakdown}).
 *
 * <p>Two phases in one bridge: a warm-up at the same rate, whose figures are reported as {@code b3_cold_*}, then,
 * once every warm-up command has its final, the measured window ({@code b3_p50_final_ms} …). On this 2-core machine
 * the JIT compiler alone takes a third to a half of a core for the first minute or two at this load (Netty's and
 * Moquette's large methods), which leaves a new JVM too little CPU to keep up: a backlog builds in the first 30 s
 * and every later command waits behind it. A site's bridge runs for weeks; the warm figure is the one that says
 * what a device sees. With {@code -Dedgebridge.trace=true} the measured window's time is also broken down by segment
 * ({@link LatencyBreakdown}).
 */
final class LatencyBench {
    /**
     * What B3 offers.
     *
     * @param rate commands per second, round robin over the devices
     * @param centralDelayMs how long central's answers take beyond its own work (a WAN's round trip)
     * @param inProcess the bridge in the bench's JVM (for the trace) instead of its own process
     */
    record Shape(int rate, int warmupSeconds, int seconds, int devices, int centralDelayMs, boolean inProcess) {}

    /** Whether the measured window is broken down by the bridge's step events (the bridge must run in this JVM). */
    private static final boolean TRACE = Boolean.getBoolean("edgebridge.trace");

    private final Path work;
    private final int rate;
    private final int warmupSeconds;
    private final int seconds;
    private final int devices;
    private final Shape shape;

    LatencyBench(Path work, Shape shape) {
        this.work = work;
        this.shape = shape;
        this.rate = shape.rate();
        this.warmupSeconds = shape.warmupSeconds();
        this.seconds = shape.seconds();
        this.devices = shape.devices();
    }

    /** What one phase offered and what came back, by command id. */
    private static final class Phase {
        final String prefix;
        final int count;
        final Map<String, Long> sentAt = new ConcurrentHashMap<>();
        /** When the paced load meant to send each command: a stall in the sender too counts from there. */
        final Map<String, Long> scheduledAt = new ConcurrentHashMap<>();

        final Map<String, Long> storedAt = new ConcurrentHashMap<>();
        final Map<String, Long> finalAt = new ConcurrentHashMap<>();
        final List<Double> stored = Collections.synchronizedList(new ArrayList<>());
        final List<Double> fin = Collections.synchronizedList(new ArrayList<>());
        final List<Double> finFromSchedule = Collections.synchronizedList(new ArrayList<>());
        final List<Double> puback = Collections.synchronizedList(new ArrayList<>());

        Phase(String prefix, int count) {
            this.prefix = prefix;
            this.count = count;
        }

        void receipt(String commandId, boolean isStored, long now) {
            Long at = sentAt.get(commandId);
            if (at != null && (isStored ? storedAt : finalAt).putIfAbsent(commandId, now) == null) {
                (isStored ? stored : fin).add((now - at) / 1e6);
                if (!isStored) {
                    finFromSchedule.add((now - scheduledAt.get(commandId)) / 1e6);
                }
            }
        }
    }

    /** The bridge's config keys for a central on a port: the defaults, pointed at its ingest URL, over {@code sets}. */
    interface ConfigFor {
        List<String> sets(String ingestUrl, int mqttPort) throws Exception;
    }

    /** The bridge under test: in this JVM or its own process; what it spent only for its own process. */
    private interface BridgeUnderTest extends AutoCloseable {
        Optional<BridgeSnapshot> snapshot() throws Exception;
    }

    private BridgeUnderTest start(Path dir, List<String> sets) throws Exception {
        if (shape.inProcess()) {
            Bridge bridge = Bridge.start(ConfigLoader.load(null, sets), Clock.systemUTC());
            return new BridgeUnderTest() {
                @Override
                public Optional<BridgeSnapshot> snapshot() {
                    return Optional.empty();
                }

                @Override
                public void close() {
                    bridge.close();
                }
            };
        }
        // the child's admin port is the one it is started with (its readiness is asked there)
        BridgeChild child = new BridgeChild(
                dir.resolve("bridge.log"),
                Bench.freePort(),
                sets.stream().filter(s -> !s.startsWith("admin.port=")).toList());
        child.awaitReady(Duration.ofMinutes(1));
        BridgeSnapshot.warm(child);
        return new BridgeUnderTest() {
            @Override
            public Optional<BridgeSnapshot> snapshot() throws Exception {
                return Optional.of(BridgeSnapshot.of(child));
            }

            @Override
            public void close() throws InterruptedException {
                child.stop();
            }
        };
    }

    void run(Map<String, Object> results, ConfigFor config) throws Exception {
        Path dir = Files.createDirectories(work.resolve("b3"));
        Phase warmup = new Phase("b3w-", rate * warmupSeconds);
        Phase measured = new Phase("b3-", rate * seconds);
        int mqttPort = Bench.freePort();
        Optional<BridgeSnapshot> before;
        Optional<BridgeSnapshot> after;
        List<StepRecording.Row> traced = List.of();
        try (StepRecording steps = TRACE && shape.inProcess() ? new StepRecording() : null;
                CentralChild central = new CentralChild(
                                dir.resolve("central.log"), Bench.freePort(), shape.centralDelayMs())
                        .awaitReady(Duration.ofMinutes(1));
                BridgeUnderTest bridge = start(dir, config.sets(central.ingestUrl(), mqttPort));
                LoadDevices fleet = new LoadDevices(mqttPort, "b3-dev-", devices, 100, true, (i, p) -> {
                    long now = System.nanoTime();
                    String commandId = LoadDevices.field(p, "commandId");
                    if (commandId == null) {
                        return;
                    }
                    boolean isStored = "stored".equals(LoadDevices.field(p, "status"));
                    boolean isFinal = LoadDevices.isFinal(p);
                    if (isStored || isFinal) {
                        (commandId.startsWith(warmup.prefix) ? warmup : measured).receipt(commandId, isStored, now);
                    }
                })) {
            fleet.connect(id -> "devices/" + id + "/receipts");
            offer(fleet, warmup);
            if (steps != null) {
                steps.clear();
            }
            before = bridge.snapshot();
            offer(fleet, measured);
            after = bridge.snapshot();
            results.put("b3_stored_receipts", (long) measured.stored.size());
            results.put("b3_final_receipts", (long) measured.fin.size());
            results.put("b3_warmup_finals", (long) warmup.fin.size());
            results.put("b3_central_applied", central.stats().path("applied").asLong());
            results.put(
                    "b3_central_duplicates", central.stats().path("duplicates").asLong());
            if (steps != null) {
                traced = steps.rows(measured.fin.size(), Duration.ofSeconds(10));
            }
        }
        results.put("b3_sent", measured.count);
        results.put("b3_warmup_sent", warmup.count);
        results.put(
                "b3_central",
                "separate process"
                        + (shape.centralDelayMs() > 0 ? ", answers " + shape.centralDelayMs() + " ms late" : ""));
        results.put(
                "b3_bridge",
                shape.inProcess()
                        ? "in the bench's JVM"
                        : "own process, " + String.join(" ", BridgeChild.SITE_JVM_FLAGS));
        results.put("b3_devices", devices);
        if (before.isPresent() && after.isPresent()) {
            // the window runs from the first publish to the last final (offer waits for them): what those commands cost
            after.get().putSince(before.get(), measured.fin.size(), "b3", results);
        }
        results.put("b3_offered_per_s", rate);
        results.put("b3_warmup_s", warmupSeconds);
        results.put("b3_cold_p50_final_ms", Bench.percentile(warmup.fin, 50));
        results.put("b3_cold_p99_final_ms", Bench.percentile(warmup.fin, 99));
        if (!traced.isEmpty()) {
            results.putAll(LatencyBreakdown.of(traced, measured.sentAt, measured.storedAt, measured.finalAt));
        }
        results.put("b3_p50_puback_ms", Bench.percentile(measured.puback, 50));
        results.put("b3_p99_puback_ms", Bench.percentile(measured.puback, 99));
        results.put("b3_p50_stored_ms", Bench.percentile(measured.stored, 50));
        results.put("b3_p99_stored_ms", Bench.percentile(measured.stored, 99));
        results.put("b3_p50_final_ms", Bench.percentile(measured.fin, 50));
        results.put("b3_p99_final_ms", Bench.percentile(measured.fin, 99));
        results.put("b3_max_final_ms", Bench.percentile(measured.fin, 100));
        // the same finals from each command's scheduled send time (open-loop: a stall of the sender counts too)
        results.put("b3_p50_final_from_schedule_ms", Bench.percentile(measured.finFromSchedule, 50));
        results.put("b3_p99_final_from_schedule_ms", Bench.percentile(measured.finFromSchedule, 99));
    }

    /** Offers the phase's commands at the rate, round robin over the devices, then awaits their finals (2 min at most). */
    private void offer(LoadDevices fleet, Phase phase) throws InterruptedException {
        long start = System.nanoTime();
        long intervalNanos = 1_000_000_000L / rate;
        for (int i = 0; i < phase.count; i++) {
            long wait = start + i * intervalNanos - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            }
            int device = i % fleet.size();
            String id = phase.prefix + i;
            long sentAt = System.nanoTime();
            phase.scheduledAt.put(id, start + i * intervalNanos);
            phase.sentAt.put(id, sentAt);
            fleet.publish(
                    device,
                    "devices/" + fleet.id(device) + "/commands/workorder/arrive",
                    LoadDevices.command(id),
                    at -> phase.puback.add((at - sentAt) / 1e6));
        }
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (phase.fin.size() < phase.count && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }
}
