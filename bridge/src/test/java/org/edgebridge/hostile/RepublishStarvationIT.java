package org.edgebridge.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.IntStream;
import org.edgebridge.bench.RawMqttClient;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 40 point 9, with the SHIPPED DEFAULTS and real MQTT connections: a device that never reads sends 3,000
 * commands, so that about 2,000 of their final receipts are left out of its full queue and stay unpublished; then
 * another device sends 2,500 without reading and comes back to read. Its queue gives it the first ~1,000 commands'
 * receipts; the rest of its finals wait in the outbox. Before, the republish took the oldest 1,000 unpublished
 * every 10 s: always the silent device's, so the other device never got its finals without resending. Now they
 * are republished device by device and it gets every one.
 */
class RepublishStarvationIT {
    private static final int MUTE = 3_000;
    private static final int LATE = 2_500;

    @TempDir
    Path dir;

    @Test
    void a_device_that_never_reads_does_not_hold_back_another_devices_final_receipts() throws Exception {
        try (HostileSite site = new HostileSite(dir)) {
            int port = site.bridge.broker().mqttPort();
            try (RawMqttClient mute = neverReading(port, "dev-mute")) {
                publish(mute, "dev-mute", "M-", MUTE);
                await().atMost(Duration.ofMinutes(2))
                        .until(() -> site.central.applied().size() >= MUTE);
                try (RawMqttClient late = neverReading(port, "dev-late")) {
                    publish(late, "dev-late", "L-", LATE);
                    await().atMost(Duration.ofMinutes(2))
                            .until(() -> site.central.applied().size() >= MUTE + LATE);
                    late.abort(); // its session (and the receipts queued in it) stays
                }
                Instant back = Instant.now();
                try (DeviceSimulator device = DeviceSimulator.of("dev-late", port)) {
                    device.connectAndSubscribe();
                    await().atMost(Duration.ofSeconds(120))
                            .pollInterval(Duration.ofMillis(500))
                            .until(() -> IntStream.rangeClosed(1, LATE)
                                    .allMatch(i -> device.receiptsFor("L-" + i).stream()
                                            .anyMatch(r ->
                                                    r.path("status").asText().equals("accepted"))));
                    System.out.printf(
                            "FIGURES republish: dev-late had every one of its %d final receipts %d ms after it "
                                    + "came back, without resending, beside a device that never reads%n",
                            LATE, Duration.between(back, Instant.now()).toMillis());
                }
            }
        }
    }

    private static RawMqttClient neverReading(int port, String clientId) throws IOException {
        RawMqttClient c = new RawMqttClient("127.0.0.1", port);
        assertThat(c.connect(RawMqttClient.Connect.of(clientId).persistent())).isZero();
        assertThat(c.subscribe("devices/" + clientId + "/receipts")).isEqualTo(1);
        return c; // and never reads again
    }

    private static void publish(RawMqttClient c, String clientId, String prefix, int count) throws IOException {
        for (int i = 1; i <= count; i++) {
            c.publish(
                    "devices/" + clientId + "/commands/t",
                    DeviceSimulator.command(prefix + i, "").getBytes(StandardCharsets.UTF_8),
                    0,
                    0,
                    false);
        }
    }
}
