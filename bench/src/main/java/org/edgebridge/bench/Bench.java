package org.edgebridge.bench;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.edgebridge.Bridge;
import org.edgebridge.broker.moquette.RawBroker;
import org.edgebridge.central.CentralSim;
import org.edgebridge.config.BridgeConfig;
import org.edgebridge.config.ConfigLoader;

/**
 * The benchmark (issue 8): the bare broker against the bridge on the same machine in the same run, with the
 * product's default durability. Each figure starts its own broker or bridge on free loopback ports in a temp
 * directory; the load generator is the HiveMQ MQTT client in this JVM.
 */
public final class Bench {
    static final String DURABILITY = "sqlite WAL synchronous=FULL";

    /** Sizes of one run. */
    record Sizes(
            int publishers,
            int perPublisher,
            int inFlight,
            LatencyBench.Shape b3,
            int b4Sessions,
            int b5Rows,
            int b5Limit,
            int b5HeldLimit,
            int b5WindowSeconds,
            int b6Attackers,
            int b6Seconds,
            int b7Devices,
            int b7InFlight,
            int b7PerDevice) {
        /** B3 of another shape. */
        Sizes withB3(LatencyBench.Shape b3) {
            return new Sizes(
                    publishers,
                    perPublisher,
                    inFlight,
                    b3,
                    b4Sessions,
                    b5Rows,
                    b5Limit,
                    b5HeldLimit,
                    b5WindowSeconds,
                    b6Attackers,
                    b6Seconds,
                    b7Devices,
                    b7InFlight,
                    b7PerDevice);
        }

        static Sizes of(boolean quick) {
            return quick
                    ? new Sizes(
                            4,
                            1_000,
                            32,
                            new LatencyBench.Shape(500, 1, 3, 20, 0, false),
                            200,
                            50_000,
                            500,
                            200,
                            5,
                            8,
                            2,
                            8,
                            64,
                            250)
                    : new Sizes(
                            4,
                            25_000,
                            32,
                            new LatencyBench.Shape(1_000, 90, 30, 20, 0, false),
                            10_000,
                            1_000_000,
                            5_000,
                            2_000,
                            20,
                            32,
                            15,
                            8,
                            64,
                            5_000);
        }
    }

    private final Sizes sizes;
    private final Path work;
    private final Map<String, Object> results = new LinkedHashMap<>();

    private final List<String> sets;
    private final boolean b7RawInProcess;

    Bench(boolean quick, Path work) {
        this(quick, work, List.of());
    }

    /** @param sets config keys for the bridges of B1, B2, B3 and B7, over the defaults */
    Bench(boolean quick, Path work, List<String> sets) {
        this(Sizes.of(quick), work, sets);
    }

    Bench(Sizes sizes, Path work, List<String> sets) {
        this(sizes, work, sets, false);
    }

    /** @param b7RawInProcess B7's bare broker in the bench's JVM, as before 2026-12-06, instead of its own process */
    Bench(Sizes sizes, Path work, List<String> sets, boolean b7RawInProcess) {
        this.sizes = sizes;
        this.work = work;
        this.sets = List.copyOf(sets);
        this.b7RawInProcess = b7RawInProcess;
    }

    /** Runs the figures named in {@code only} (all when empty) and returns the JSON-ready results. */
    Map<String, Object> run(Set<String> only) throws Exception {
        for (String key : List.of(
                "b0_msgs_per_s",
                "b1_msgs_per_s",
                "b2_msgs_per_s",
                "ratio_b1_b0",
                "ratio_b2_b0",
                "b3_p50_stored_ms",
                "b3_p99_stored_ms",
                "b3_p50_final_ms",
                "b3_p99_final_ms",
                "b3_max_final_ms",
                "b3_bridge_cpu_us_per_final",
                "b4_sessions",
                "b4_heap_mib",
                "b4_rss_mib",
                "b4_reconnect_s",
                "b5_rows",
                "b5_ready_s",
                "b5_drain_events_per_s",
                "b5_limit_events_per_s",
                "b5_held_drain_events_per_s",
                "b5_held_limit_events_per_s",
                "b7_raw_msgs_per_s",
                "b7_finals_per_s",
                "ratio_b7")) {
            results.put(key, null);
        }
        results.put("durability", DURABILITY);
        if (wanted(only, "B0")) {
            results.put("b0_msgs_per_s", round(b0()));
        }
        if (wanted(only, "B1")) {
            results.put("b1_msgs_per_s", round(throughput(false)));
        }
        if (wanted(only, "B2")) {
            results.put("b2_msgs_per_s", round(throughput(true)));
        }
        if (results.get("b0_msgs_per_s") instanceof Double b0) {
            if (results.get("b1_msgs_per_s") instanceof Double b1) {
                results.put("ratio_b1_b0", Math.round(b1 / b0 * 1000) / 1000.0);
            }
            if (results.get("b2_msgs_per_s") instanceof Double b2) {
                results.put("ratio_b2_b0", Math.round(b2 / b0 * 1000) / 1000.0);
            }
        }
        if (wanted(only, "B3")) {
            new LatencyBench(work, sizes.b3())
                    .run(
                            results,
                            (ingestUrl, mqttPort) -> configSets("b3", mqttPort, List.of("ingest.url=" + ingestUrl)));
        }
        if (wanted(only, "B4")) {
            b4();
        }
        if (wanted(only, "B5")) {
            new BacklogBench(work, sizes.b5Rows(), sizes.b5Limit(), sizes.b5HeldLimit(), sizes.b5WindowSeconds())
                    .run(results);
        }
        if (wanted(only, "B6")) {
            new AuthFloodBench(work, sizes.b6Attackers(), sizes.b6Seconds()).run(results);
        }
        if (wanted(only, "B7")) {
            new CapacityBench(work, sizes.b7Devices(), sizes.b7InFlight(), sizes.b7PerDevice(), sets, b7RawInProcess)
                    .run(results);
        }
        return results;
    }

    private static boolean wanted(Set<String> only, String figure) {
        return only.isEmpty() || only.contains(figure);
    }

    private int total() {
        return sizes.publishers() * sizes.perPublisher();
    }

    /** B0: K publishers → 1 subscriber through bare Moquette; messages delivered per second. */
    private double b0() throws Exception {
        int port = freePort();
        BridgeConfig c = config("b0", port, List.of());
        AtomicLong delivered = new AtomicLong();
        try (RawBroker broker = new RawBroker(c.broker());
                LoadDevices sink = new LoadDevices(port, "sink-", 1, 1, (i, p) -> delivered.incrementAndGet());
                LoadDevices pubs = new LoadDevices(port, "pub-", sizes.publishers(), sizes.inFlight(), (i, p) -> {})) {
            sink.connect(id -> "devices/+/commands/#");
            pubs.connect(id -> null);
            long start = System.nanoTime();
            publishAll(pubs, "b0");
            awaitCount(delivered, total(), Duration.ofMinutes(5));
            return total() / ((System.nanoTime() - start) / 1e9);
        }
    }

    /** B1 (forwarding paused: {@code stored} receipts per second) or B2 (with central: final receipts per second). */
    private double throughput(boolean endToEnd) throws Exception {
        String figure = endToEnd ? "b2" : "b1";
        int port = freePort();
        AtomicLong receipts = new AtomicLong();
        String wanted = endToEnd ? "accepted" : "stored";
        try (CentralSim central = new CentralSim(Optional.empty(), 64L << 20, Clock.systemUTC()).start("127.0.0.1", 0);
                Bridge bridge = Bridge.start(
                        config(figure, port, List.of("ingest.url=http://127.0.0.1:" + central.port() + "/ingest")),
                        Clock.systemUTC());
                LoadDevices devices =
                        new LoadDevices(port, figure + "-dev-", sizes.publishers(), sizes.inFlight(), true, (i, p) -> {
                            if (wanted.equals(LoadDevices.field(p, "status"))) {
                                receipts.incrementAndGet();
                            }
                        })) {
            if (!endToEnd) {
                bridge.forwarder().pause();
            }
            devices.connect(id -> "devices/" + id + "/receipts");
            long start = System.nanoTime();
            publishAll(devices, figure);
            awaitCount(receipts, total(), Duration.ofMinutes(5));
            double rate = total() / ((System.nanoTime() - start) / 1e9);
            if (endToEnd && central.inbox().size() != total()) {
                throw new IllegalStateException(
                        "central applied " + central.inbox().size() + " of " + total());
            }
            results.put(figure + "_receipts", receipts.get());
            return rate;
        }
    }

    private void publishAll(LoadDevices devices, String figure) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (int d = 0; d < devices.size(); d++) {
            int device = d;
            Thread t = new Thread(
                    () -> {
                        String topic = "devices/" + devices.id(device) + "/commands/workorder/arrive";
                        try {
                            for (int n = 0; n < sizes.perPublisher(); n++) {
                                devices.publish(device, topic, LoadDevices.command(figure + "-" + device + "-" + n));
                            }
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    },
                    "bench-publisher-" + d);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
    }

    /** B4: N persistent sessions on a bridge in its own JVM: heap, RSS, and reconnection after a restart. */
    private void b4() throws Exception {
        int port = freePort();
        int n = sizes.b4Sessions();
        Path dir = Files.createDirectories(work.resolve("b4"));
        List<String> sets = new ArrayList<>(onLoopback(dir, port));
        sets.add("ingest.url=http://127.0.0.1:9/ingest");
        try (LoadDevices devices = new LoadDevices(port, "b4-dev-", n, 1, (i, p) -> {})) {
            try (BridgeChild bridge = new BridgeChild(dir.resolve("bridge.log"), freePort(), sets)) {
                bridge.awaitReady(Duration.ofMinutes(1));
                devices.connect(id -> "devices/" + id + "/receipts");
                results.put("b4_heap_mib", Math.round(bridge.heapAfterGcMib() * 10) / 10.0);
                results.put("b4_rss_mib", Math.round(bridge.rssMib() * 10) / 10.0);
                bridge.stop();
            }
            devices.disconnectAll();
            try (BridgeChild bridge = new BridgeChild(dir.resolve("bridge.log"), freePort(), sets)) {
                bridge.awaitReady(Duration.ofMinutes(1));
                int present = devices.connect(id -> "devices/" + id + "/receipts");
                results.put("b4_reconnect_s", Math.round((System.nanoTime() - bridge.startedNanos) / 1e7) / 100.0);
                results.put("b4_sessions_present_after_restart", present);
                bridge.stop();
            }
        }
        results.put("b4_sessions", n);
    }

    private BridgeConfig config(String figure, Object port, List<String> more) throws IOException {
        return ConfigLoader.load(null, configSets(figure, port, more));
    }

    /** The config keys of a figure's bridge: its data dir and port, anonymous devices, {@code more}, then --set's. */
    private List<String> configSets(String figure, Object port, List<String> more) throws IOException {
        List<String> sets = new ArrayList<>(onLoopback(Files.createDirectories(work.resolve(figure)), port));
        sets.add("admin.port=0");
        sets.addAll(more);
        sets.addAll(this.sets);
        return sets;
    }

    /** The keys every figure's broker or bridge starts with: {@code dir}/data, MQTT on loopback at {@code port}, anonymous devices. */
    static List<String> onLoopback(Path dir, Object port) {
        return List.of(
                "data.dir=" + dir.resolve("data"), "mqtt.host=127.0.0.1", "mqtt.port=" + port, "auth.anonymous=true");
    }

    private static void awaitCount(AtomicLong counter, long target, Duration atMost) throws InterruptedException {
        long deadline = System.nanoTime() + atMost.toNanos();
        while (counter.get() < target) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "only " + counter.get() + " of " + target + " arrived within " + atMost);
            }
            Thread.sleep(5);
        }
    }

    static Double percentile(List<Double> values, double p) {
        if (values.isEmpty()) {
            return null;
        }
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int index = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return Math.round(sorted.get(Math.max(0, Math.min(sorted.size() - 1, index))) * 100) / 100.0;
    }

    private static Double round(double v) {
        return Math.round(v * 10) / 10.0;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
