package org.edgebridge.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.edgebridge.Bridge;
import org.edgebridge.config.BridgeConfig;
import org.edgebridge.trace.CommandTrace;

/**
 * B3: a fixed offered rate against the default config, central in its own JVM; latency from publish to
 * {@code stored} and to the final receipt, at each device (4 devices subscribed to their receipts).
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
    private final Path work;
    private final int rate;
    private final int warmupSeconds;
    private final int seconds;
    private final int devices;

    LatencyBench(Path work, int rate, int warmupSeconds, int seconds, int devices) {
        this.work = work;
        this.rate = rate;
        this.warmupSeconds = warmupSeconds;
        this.seconds = seconds;
        this.devices = devices;
    }

    /** What one phase offered and what came back, by command id. */
    private static final class Phase {
        final String prefix;
        final int count;
        final Map<String, Long> sentAt = new ConcurrentHashMap<>();
        final Map<String, Long> storedAt = new ConcurrentHashMap<>();
        final Map<String, Long> finalAt = new ConcurrentHashMap<>();
        final List<Double> stored = Collections.synchronizedList(new ArrayList<>());
        final List<Double> fin = Collections.synchronizedList(new ArrayList<>());

        Phase(String prefix, int count) {
            this.prefix = prefix;
            this.count = count;
        }

        void receipt(String commandId, boolean isStored, long now) {
            Long at = sentAt.get(commandId);
            if (at != null && (isStored ? storedAt : finalAt).putIfAbsent(commandId, now) == null) {
                (isStored ? stored : fin).add((now - at) / 1e6);
            }
        }
    }

    /** The bridge's config for a central: the defaults, pointed at its ingest URL. */
    interface ConfigFor {
        BridgeConfig central(String ingestUrl) throws Exception;
    }

    void run(Map<String, Object> results, ConfigFor config) throws Exception {
        Path dir = Files.createDirectories(work.resolve("b3"));
        Phase warmup = new Phase("b3w-", rate * warmupSeconds);
        Phase measured = new Phase("b3-", rate * seconds);
        try (CentralChild central = new CentralChild(dir.resolve("central.log"), Bench.freePort()).awaitReady(Duration.ofMinutes(1));
                Bridge bridge = Bridge.start(config.central(central.ingestUrl()), Clock.systemUTC());
                LoadDevices fleet = new LoadDevices(bridge.broker().mqttPort(), "b3-dev-", devices, 100, true, (i, p) -> {
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
            CommandTrace.clear();
            offer(fleet, measured);
            results.put("b3_stored_receipts", (long) measured.stored.size());
            results.put("b3_final_receipts", (long) measured.fin.size());
            results.put("b3_warmup_finals", (long) warmup.fin.size());
            results.put("b3_central_applied", central.stats().path("applied").asLong());
            results.put("b3_central_duplicates", central.stats().path("duplicates").asLong());
        }
        results.put("b3_sent", measured.count);
        results.put("b3_warmup_sent", warmup.count);
        results.put("b3_central", "separate process");
        results.put("b3_offered_per_s", rate);
        results.put("b3_warmup_s", warmupSeconds);
        results.put("b3_cold_p50_final_ms", Bench.percentile(warmup.fin, 50));
        results.put("b3_cold_p99_final_ms", Bench.percentile(warmup.fin, 99));
        if (CommandTrace.ON) {
            results.putAll(LatencyBreakdown.of(CommandTrace.rows(), measured.sentAt, measured.storedAt, measured.finalAt));
        }
        results.put("b3_p50_stored_ms", Bench.percentile(measured.stored, 50));
        results.put("b3_p99_stored_ms", Bench.percentile(measured.stored, 99));
        results.put("b3_p50_final_ms", Bench.percentile(measured.fin, 50));
        results.put("b3_p99_final_ms", Bench.percentile(measured.fin, 99));
        results.put("b3_max_final_ms", Bench.percentile(measured.fin, 100));
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
            phase.sentAt.put(id, System.nanoTime());
            fleet.publish(device, "devices/" + fleet.id(device) + "/commands/workorder/arrive", LoadDevices.command(id));
        }
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (phase.fin.size() < phase.count && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }
}
