package org.edgebridge.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.edgebridge.broker.moquette.RawBroker;
import org.edgebridge.config.ConfigLoader;

/**
 * B7: closed-loop capacity. Devices that keep {@code inFlight} commands waiting for their final receipts, the rate
 * limits lifted, the bridge as its own process with the service unit's JVM flags ({@link BridgeChild}) and central in
 * its own JVM, as a site runs them, so that the bridge's CPU per final at capacity is its own (and by thread:
 * {@link ThreadCpu}); against bare Moquette in the same run (its own process too, {@link RawBrokerChild}), the same devices each subscribed to
 * their own topic, a message in flight until it comes back. Finals per second, and their ratio to the bare broker.
 * Each side runs the same load {@link #WARMUP_ROUNDS} times unmeasured first, to warm the JVM up (its JIT takes a large share of this 2-core
 * machine for the first minute), then once measured.
 */
final class CapacityBench {
    /**
     * The unmeasured runs before the measured one. With one, the bridge's JIT compiler threads still took 122 µs of
     * CPU per final in the measured run (2026-12-05, {@link ThreadCpu}): a third of the bridge's CPU, and a measure of
     * a JVM still warming up, which a site's bridge, running for weeks, is not.
     */
    static final int WARMUP_ROUNDS = 3;

    private final Path work;
    private final int devices;
    private final int inFlight;
    private final int perDevice;
    private final List<String> sets;
    private final boolean rawInProcess;

    /**
     * @param sets config keys for the bridge, over the bench's own
     * @param rawInProcess the bare broker in the bench's JVM (as before 2026-12-06) instead of its own process
     */
    CapacityBench(Path work, int devices, int inFlight, int perDevice, List<String> sets, boolean rawInProcess) {
        this.work = work;
        this.devices = devices;
        this.inFlight = inFlight;
        this.perDevice = perDevice;
        this.sets = List.copyOf(sets);
        this.rawInProcess = rawInProcess;
    }

    void run(Map<String, Object> results) throws Exception {
        double raw = raw(results);
        double bridge = bridge(results);
        results.put("b7_devices_x_in_flight", devices + " x " + inFlight);
        results.put("b7_raw_msgs_per_s", Math.round(raw * 10) / 10.0);
        results.put("b7_finals_per_s", Math.round(bridge * 10) / 10.0);
        results.put("ratio_b7", Math.round(bridge / raw * 1000) / 1000.0);
    }

    private int total() {
        return devices * perDevice;
    }

    /**
     * Bare Moquette: each device publishes to a topic it is subscribed to; a message is in flight until it is back. In
     * its own process ({@link RawBrokerChild}), or with {@code rawInProcess} in the bench's JVM, as before 2026-12-06.
     */
    private double raw(Map<String, Object> results) throws Exception {
        int port = Bench.freePort();
        Path dir = Files.createDirectories(work.resolve("b7-raw"));
        List<String> config = new ArrayList<>(Bench.onLoopback(dir, port));
        config.add("admin.port=0");
        if (rawInProcess) {
            results.put("b7_raw_broker", "in the bench's JVM");
            try (RawBroker broker =
                    new RawBroker(ConfigLoader.load(null, config).broker())) {
                return rawLoad(port, null, results);
            }
        }
        results.put("b7_raw_broker", "own process, " + String.join(" ", BridgeChild.SITE_JVM_FLAGS));
        try (RawBrokerChild broker =
                new RawBrokerChild(dir.resolve("raw-broker.log"), port, config).awaitListening(Duration.ofMinutes(1))) {
            return rawLoad(port, broker, results);
        }
    }

    /** @param child the bare broker's process, for its CPU, or null when it runs in this JVM */
    private double rawLoad(int port, RawBrokerChild child, Map<String, Object> results) throws Exception {
        AtomicLong back = new AtomicLong();
        try (LoadDevices loop =
                new LoadDevices(port, "b7-raw-", devices, inFlight, p -> true, (i, p) -> back.incrementAndGet())) {
            loop.connect(id -> "loop/" + id);
            for (int round = 0; round < WARMUP_ROUNDS; round++) {
                publishAll(loop, id -> "loop/" + id, "b7w" + round + "-", null);
                await(back, (round + 1L) * total());
            }
            back.set(0);
            double cpuBefore = child != null ? child.cpuSeconds() : 0;
            long start = System.nanoTime();
            publishAll(loop, id -> "loop/" + id, "b7-", null);
            await(back, total());
            double seconds = (System.nanoTime() - start) / 1e9;
            if (child != null) {
                results.put(
                        "b7_raw_cpu_us_per_msg",
                        Math.round((child.cpuSeconds() - cpuBefore) * 1e6 / total() * 10) / 10.0);
            }
            return total() / seconds;
        }
    }

    /** The bridge: each device waits for its commands' finals (or a retry_later: counted, not resent). */
    private double bridge(Map<String, Object> results) throws Exception {
        int port = Bench.freePort();
        Path dir = Files.createDirectories(work.resolve("b7"));
        AtomicLong finals = new AtomicLong();
        AtomicLong retryLaters = new AtomicLong();
        Map<String, Long> sentAt = new ConcurrentHashMap<>();
        List<Double> latency = Collections.synchronizedList(new ArrayList<>());
        try (CentralChild central = new CentralChild(dir.resolve("central.log"), Bench.freePort())
                        .awaitReady(Duration.ofMinutes(1));
                BridgeChild bridge =
                        new BridgeChild(dir.resolve("bridge.log"), Bench.freePort(), bridgeConfig(port, central));
                LoadDevices fleet = new LoadDevices(
                        port,
                        "b7-dev-",
                        devices,
                        inFlight,
                        p -> LoadDevices.isFinal(p) || "retry_later".equals(LoadDevices.field(p, "status")),
                        (i, p) -> {
                            if (LoadDevices.isFinal(p)) {
                                Long at = sentAt.get(LoadDevices.field(p, "commandId"));
                                if (at != null) {
                                    latency.add((System.nanoTime() - at) / 1e6);
                                }
                                finals.incrementAndGet();
                            } else if ("retry_later".equals(LoadDevices.field(p, "status"))) {
                                retryLaters.incrementAndGet();
                            }
                        })) {
            bridge.awaitReady(Duration.ofMinutes(1));
            BridgeSnapshot.warm(bridge);
            fleet.connect(id -> "devices/" + id + "/receipts");
            for (int round = 0; round < WARMUP_ROUNDS; round++) {
                publishAll(fleet, id -> "devices/" + id + "/commands/workorder/arrive", "b7w" + round + "-", null);
                await(finals, (round + 1L) * total() - retryLaters.get());
            }
            finals.set(0);
            retryLaters.set(0);
            BridgeSnapshot before = BridgeSnapshot.of(bridge);
            long start = System.nanoTime();
            publishAll(fleet, id -> "devices/" + id + "/commands/workorder/arrive", "b7-", sentAt);
            await(finals, total() - retryLaters.get());
            double rate = finals.get() / ((System.nanoTime() - start) / 1e9);
            results.put("b7_bridge", "own process, " + String.join(" ", BridgeChild.SITE_JVM_FLAGS));
            BridgeSnapshot.of(bridge).putSince(before, finals.get(), "b7", results);
            results.put("b7_finals", finals.get());
            results.put("b7_retry_laters", retryLaters.get());
            results.put("b7_central_applied", central.stats().path("applied").asLong());
            results.put("b7_p50_final_ms", Bench.percentile(latency, 50));
            results.put("b7_p99_final_ms", Bench.percentile(latency, 99));
            return rate;
        }
    }

    private List<String> bridgeConfig(int port, CentralChild central) throws java.io.IOException {
        List<String> config = new ArrayList<>(Bench.onLoopback(Files.createDirectories(work.resolve("b7")), port));
        config.addAll(List.of(
                "ingest.url=" + central.ingestUrl(),
                "forwarder.requestsPerSecond=100000",
                "forwarder.eventsPerSecond=1000000"));
        config.addAll(sets);
        return config;
    }

    /** Each device sends perDevice commands ({@code prefix} + device + n); @param sentAt where to note when, or null */
    private void publishAll(
            LoadDevices fleet,
            java.util.function.Function<String, String> topicOf,
            String prefix,
            Map<String, Long> sentAt)
            throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (int d = 0; d < fleet.size(); d++) {
            int device = d;
            Thread t = new Thread(
                    () -> {
                        String topic = topicOf.apply(fleet.id(device));
                        try {
                            for (int n = 0; n < perDevice; n++) {
                                String id = prefix + device + "-" + n;
                                long at = fleet.publish(device, topic, LoadDevices.command(id));
                                if (sentAt != null) {
                                    sentAt.put(id, at); // a final faster than this put is not sampled (one is ms away)
                                }
                            }
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    },
                    "b7-publisher-" + d);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
    }

    private static void await(AtomicLong counter, long target) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (counter.get() < target) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("only " + counter.get() + " of " + target + " within 5 minutes");
            }
            Thread.sleep(5);
        }
    }
}
