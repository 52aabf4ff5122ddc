package org.edgebridge.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.edgebridge.central.CentralSim;
import org.edgebridge.outbox.BulkLoader;
import org.edgebridge.outbox.CommandState;
import org.edgebridge.outbox.NewCommand;
import org.edgebridge.outbox.Outbox;

/** B5: the drain of a backlog after an outage, by a bridge in its own process (sizes in {@link Bench.Sizes}). */
final class BacklogBench {
    private final Path work;
    private final int rows;
    private final int limit;
    private final int heldLimit;
    private final int windowSeconds;

    BacklogBench(Path work, int rows, int limit, int heldLimit, int windowSeconds) {
        this.work = work;
        this.rows = rows;
        this.limit = limit;
        this.heldLimit = heldLimit;
        this.windowSeconds = windowSeconds;
    }

    /**
     * B5: a bridge restarted on an outbox with a backlog: time to ready, then the drain rate under the events limit;
     * then restarted on what is left with a lower limit, one this machine carries (a limit above what the bridge can
     * send measures the bridge, not the limiter): how closely the drain holds to it.
     */
    void run(Map<String, Object> results) throws Exception {
        Path dir = Files.createDirectories(work.resolve("b5"));
        Path data = dir.resolve("data");
        seedBacklog(data.resolve("outbox.db"), rows, 100);
        try (CentralSim central =
                new CentralSim(Optional.empty(), 64L << 20, Clock.systemUTC()).start("127.0.0.1", 0)) {
            double[] first = drain(dir.resolve("bridge.log"), data, central, limit);
            results.put("b5_ready_s", first[0]);
            results.put("b5_drain_events_per_s", first[1]);
            results.put(
                    "b5_held_drain_events_per_s", drain(dir.resolve("bridge-held.log"), data, central, heldLimit)[1]);
        }
        results.put("b5_rows", rows);
        results.put("b5_limit_events_per_s", limit);
        results.put("b5_held_limit_events_per_s", heldLimit);
    }

    /** Starts a bridge on {@code data} with an events limit; @return its seconds to ready and its drain rate */
    private double[] drain(Path log, Path data, CentralSim central, int eventsPerSecond) throws Exception {
        try (BridgeChild bridge = new BridgeChild(
                log,
                Bench.freePort(),
                List.of(
                        "data.dir=" + data,
                        "mqtt.host=127.0.0.1",
                        "mqtt.port=" + Bench.freePort(),
                        "auth.anonymous=true",
                        "ingest.url=http://127.0.0.1:" + central.port() + "/ingest",
                        "forwarder.eventsPerSecond=" + eventsPerSecond))) {
            double ready = Math.round(bridge.awaitReady(Duration.ofMinutes(2)) * 100) / 100.0;
            Thread.sleep(2_000);
            int from = central.inbox().size();
            long start = System.nanoTime();
            Thread.sleep(windowSeconds * 1000L);
            int to = central.inbox().size();
            double rate = Math.round((to - from) / ((System.nanoTime() - start) / 1e9) * 10) / 10.0;
            bridge.stop();
            return new double[] {ready, rate};
        }
    }

    /** Pending rows as a site would have them after a long outage, written straight into a fresh outbox. */
    static void seedBacklog(Path file, int rows, int devices) throws Exception {
        Outbox.open(file, Clock.systemUTC()).close();
        java.time.Instant now = Instant.now();
        MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
        BulkLoader.load(
                file,
                IntStream.range(0, rows).mapToObj(i -> {
                    String device = "b5-dev-" + (i % devices);
                    String id = "b5-" + i;
                    byte[] payload = LoadDevices.command(id).getBytes(StandardCharsets.UTF_8);
                    return new NewCommand(
                            device,
                            id,
                            "devices/" + device + "/commands/workorder/arrive",
                            "workorder/arrive",
                            payload,
                            HexFormat.of().formatHex(sha256.digest(payload)),
                            now);
                }),
                CommandState.PENDING,
                null);
    }
}
