package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.edgebridge.central.CentralSim;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Moquette PUBACKs a PUBLISH before the intake sees it and queues it for the intake thread without a bound, so
 * devices that publish large commands faster than the intake parses them filled that queue (and the heap) without
 * limit. Here 12 devices send 200 KB commands that cost the intake a JSON parse each, as fast as the broker
 * acknowledges them, into a bridge with a 256 MiB heap: the queue stays near its bound, nothing is lost. That queue is
 * Moquette's path, taken only with {@code mqtt.pubackAfterCommit=false}: with the default, a command's PUBACK waits for
 * its commit and the per-connection cap ({@code mqtt.maxCommandsAwaitingCommit}) slows a device first, so the intake
 * may never fall behind (PubackAfterCommitIT shows that cap biting).
 */
class InboundBackPressureIT {
    private static final int DEVICES = 12;
    private static final int EACH = 30;

    @TempDir
    Path dir;

    @Test
    void devices_that_publish_faster_than_the_intake_parses_are_slowed_by_tcp_not_by_the_heap() throws Exception {
        String numbers = "1234567,".repeat(25_000);
        try (CentralSim central = new CentralSim(Optional.empty(), 64L << 20, Clock.systemUTC()).start("127.0.0.1", 0);
                BridgeProcess bridge = new BridgeProcess(
                                BridgeProcess.logFile("backpressure"),
                                "data.dir=" + dir.resolve("data"),
                                "mqtt.host=127.0.0.1",
                                "mqtt.port=any",
                                "auth.anonymous=true",
                                "mqtt.pubackAfterCommit=false",
                                "ingest.url=http://127.0.0.1:" + central.port() + "/ingest")
                        .start()) {
            List<DeviceSimulator> devices = new ArrayList<>();
            List<Map<String, String>> payloads = new ArrayList<>();
            try {
                for (int d = 0; d < DEVICES; d++) {
                    DeviceSimulator device = DeviceSimulator.of("dev-bp-" + d, bridge.mqttPort());
                    device.connectAndSubscribe();
                    devices.add(device);
                    Map<String, String> mine = new LinkedHashMap<>();
                    for (int i = 0; i < EACH; i++) {
                        String id = "BP-" + d + "-" + i;
                        mine.put(id, DeviceSimulator.command(id, "\"samples\":[" + numbers + "0]"));
                    }
                    payloads.add(mine);
                }
                List<Thread> senders = new ArrayList<>();
                for (int d = 0; d < DEVICES; d++) {
                    DeviceSimulator device = devices.get(d);
                    Map<String, String> mine = payloads.get(d);
                    Thread t = new Thread(
                            () -> mine.values()
                                    .forEach(p -> device.publishWithoutWaiting(
                                            "devices/" + device.clientId() + "/commands/samples",
                                            p.getBytes(StandardCharsets.UTF_8))),
                            "sender-" + d);
                    t.start();
                    senders.add(t);
                }
                for (Thread t : senders) {
                    t.join();
                }
                for (int d = 0; d < DEVICES; d++) {
                    devices.get(d)
                            .resendUntilFinal(
                                    payloads.get(d), "samples", Duration.ofSeconds(10), Duration.ofMinutes(3));
                }
            } finally {
                devices.forEach(DeviceSimulator::close);
            }
            assertThat(bridge.isAlive()).isTrue();
            assertThat(central.inbox().size()).isEqualTo(DEVICES * EACH);
            assertThat(central.inbox().entries())
                    .allSatisfy(e -> assertThat(e.deliveries()).isEqualTo(1));
            String metrics = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + bridge.adminPort() + "/metrics"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            double most = gauge(metrics, "edgebridge_broker_waiting_publishes_most");
            double pauses = gauge(metrics, "edgebridge_broker_read_pauses_total");
            System.out.printf(
                    "back-pressure: most PUBLISHes waiting for the intake %.0f (high water 64), "
                            + "connections paused %.0f times%n",
                    most, pauses);
            assertThat(pauses)
                    .as("the intake fell behind, so connections were paused")
                    .isPositive();
            // Past the high water a connection is paused by the PUBLISH that finds it, which itself goes on, and a
            // PUBLISH already decoded from the same read follows it: two per connection. And each I/O thread may hold
            // one PUBLISH that passed the check but is not counted yet (Netty's default: 2 threads per core).
            int ioThreads = 2 * Runtime.getRuntime().availableProcessors();
            assertThat(most)
                    .as("PUBLISHes waiting in front of the intake (high water 64, two more per connection, one more "
                            + "per I/O thread)")
                    .isLessThanOrEqualTo(64 + 2 * DEVICES + ioThreads);
        }
    }

    private static double gauge(String metrics, String name) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + " ([0-9.eE+-]+)$")
                .matcher(metrics);
        assertThat(m.find()).as(name + " in /metrics").isTrue();
        return Double.parseDouble(m.group(1));
    }
}
