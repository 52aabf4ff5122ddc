package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.edgebridge.bench.RawMqttClient;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 24, point 2: a device that never reads its receipts grew the broker store without limit. Past the 10 in
 * flight Moquette 0.17 queues every receipt in its store, and a rejection receipt repeats the topic, which had no
 * length limit: 2,500 one-byte QoS 0 publishes on a 60 KB topic left 144 MB of store and an empty outbox. Now a topic
 * over {@code mqtt.maxTopicBytes} closes the connection, and each device's queued receipts are bounded
 * ({@code mqtt.maxQueuedReceipts}, {@code mqtt.maxQueuedReceiptBytes}); a receipt left out is answered on resend.
 * Shipped defaults throughout.
 */
class ReceiptQueueBoundsIT {
    private static final int LONG_TOPIC_PUBLISHES = 2_500;
    private static final int LONG_TOPIC_BYTES = 60_000;
    /** One-byte publishes on a topic just under the shipped mqtt.maxTopicBytes (512): a 10,000-receipt backlog before. */
    private static final int PUBLISHES = 10_000;

    private static final String SLOW = "slow-node";
    private static final String TOPIC_480 = "devices/" + SLOW + "/commands/" + "t".repeat(480 - 27);

    @TempDir
    Path dir;

    @Test
    void a_device_that_never_reads_is_closed_at_its_first_publish_on_a_60_kb_topic_and_the_store_stays_small()
            throws Exception {
        boolean closed;
        long tooLong;
        try (TestSite site = new TestSite(dir);
                DeviceSimulator device = site.device("field-node-1");
                RawMqttClient slow = neverReading(site)) {
            device.connectAndSubscribe();
            String topic = "devices/" + SLOW + "/commands/" + "t".repeat(LONG_TOPIC_BYTES);
            CompletableFuture<Void> flood =
                    CompletableFuture.runAsync(() -> publish(slow, topic, LONG_TOPIC_PUBLISHES));
            deviceGetsItsAccepted(device);
            flood.join();
            closed = slow.closedByPeer(5_000);
            tooLong = status(site).path("topicsTooLong").asLong();
        }
        assertThat(storeBytes()).as("broker store bytes after a clean stop").isLessThan(5_000_000);
        assertThat(closed).as("the bridge closed the connection").isTrue();
        assertThat(tooLong).isEqualTo(1);
    }

    @Test
    void
            a_device_that_never_reads_gets_at_most_1_mib_of_10000_receipts_queued_and_its_resend_gets_the_receipt_left_out()
                    throws Exception {
        JsonNode limits;
        try (TestSite site = new TestSite(dir)) {
            try (DeviceSimulator device = site.device("field-node-1");
                    RawMqttClient slow = neverReading(site)) {
                device.connectAndSubscribe();
                CompletableFuture<Void> flood = CompletableFuture.runAsync(() -> {
                    publish(slow, TOPIC_480, PUBLISHES);
                    publish(
                            slow,
                            "devices/" + SLOW + "/commands/workorder/arrive",
                            DeviceSimulator.command("WO-9", "\"workOrderId\":\"WO-9\"")
                                    .getBytes(StandardCharsets.UTF_8));
                });
                deviceGetsItsAccepted(device);
                flood.join();
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> site.getJson("/api/status")
                                        .path("intake")
                                        .path("received")
                                        .asLong()
                                >= PUBLISHES + 2);
                limits = status(site);
            }
            // the slow device comes back, reads at last, and resends the command whose receipts were left out
            try (DeviceSimulator again = site.device(SLOW)) {
                again.connectAndSubscribe();
                again.publish("workorder/arrive", DeviceSimulator.command("WO-9", "\"workOrderId\":\"WO-9\""));
                again.awaitReceipt("WO-9", "accepted");
            }
        }
        assertThat(storeBytes()).as("broker store bytes after a clean stop").isLessThan(3_000_000);
        // receipts still on their way when the status was read may not be counted yet: a little slack
        // 1 MiB of receipts of about 700 bytes each (the shipped mqtt.maxQueuedReceiptBytes binds before the 2,000
        // entries)
        assertThat(limits.path("mostQueuedReceipts").asInt()).isBetween(1_000, 1_600);
        assertThat(limits.path("receiptsDropped").asLong()).isGreaterThan(PUBLISHES - 1_600 - 10 - 500);
    }

    /**
     * Many devices that each stay within their own bound: the bound for all devices together stops them. The bounds are
     * lowered (100 per device, 250 in all) so that five devices reach them; the shipped ones are 2,000 and 200,000.
     */
    @Test
    void many_devices_that_never_read_stop_at_the_bound_for_all_devices_and_metrics_show_it() throws Exception {
        int devices = 5;
        int publishes = 150;
        try (TestSite site = new TestSite(dir, "mqtt.maxQueuedReceipts=100", "mqtt.maxQueuedReceiptsTotal=250")) {
            java.util.List<RawMqttClient> slow = new java.util.ArrayList<>();
            try {
                for (int d = 0; d < devices; d++) {
                    slow.add(neverReading(site, SLOW + "-" + d));
                }
                for (int d = 0; d < devices; d++) {
                    publish(slow.get(d), "devices/" + SLOW + "-" + d + "/commands/t", publishes);
                }
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> site.getJson("/api/status")
                                        .path("intake")
                                        .path("received")
                                        .asLong()
                                >= (long) devices * publishes);
                // until the bounds are full and the site's bound has left receipts out (the exact count left out
                // depends
                // on how many receipts each device had in flight when its queue filled)
                await().atMost(Duration.ofSeconds(60)).until(() -> {
                    JsonNode now = status(site);
                    return now.path("queuedReceipts").asLong() >= 150
                            && now.path("receiptsDroppedSiteFull").asLong() > 200;
                });
                JsonNode limits = status(site);
                assertThat(limits.path("queuedReceipts").asLong())
                        .as("queued for all devices")
                        .isBetween(150L, 250L);
                assertThat(limits.path("receiptsDroppedSiteFull").asLong())
                        .as("left out by the bound for all devices: the last devices get few or none queued")
                        .isGreaterThan(200L);
                String metrics = site.get("/metrics").body();
                assertThat(metrics)
                        .contains("edgebridge_broker_receipts_left_out_total{bound=\"site\"}")
                        .contains("edgebridge_broker_queued_receipts ");
            } finally {
                for (RawMqttClient c : slow) {
                    c.close();
                }
            }
        }
    }

    private static RawMqttClient neverReading(TestSite site) throws IOException {
        return neverReading(site, SLOW);
    }

    private static RawMqttClient neverReading(TestSite site, String clientId) throws IOException {
        RawMqttClient slow = new RawMqttClient("127.0.0.1", site.mqttPort);
        assertThat(slow.connect(RawMqttClient.Connect.of(clientId).persistent()))
                .isZero();
        assertThat(slow.subscribe("devices/" + clientId + "/receipts")).isEqualTo(1);
        return slow; // and never reads again
    }

    private static void publish(RawMqttClient c, String topic, int times) {
        try {
            for (int i = 0; i < times; i++) {
                c.publish(topic, new byte[] {'x'}, 0, 0, false);
            }
        } catch (IOException e) {
            // closed by the bridge
        }
    }

    private static void publish(RawMqttClient c, String topic, byte[] payload) {
        try {
            c.publish(topic, payload, 0, 0, false);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deviceGetsItsAccepted(DeviceSimulator device) {
        device.publish("workorder/arrive", DeviceSimulator.command("WO-1", "\"workOrderId\":\"WO-1\""));
        device.awaitReceipt("WO-1", "accepted");
    }

    private static JsonNode status(TestSite site) throws Exception {
        return site.getJson("/api/status").path("broker").path("limits");
    }

    private long storeBytes() throws IOException {
        try (Stream<Path> files = Files.walk(dir.resolve("broker"))) {
            return files.filter(Files::isRegularFile)
                    .mapToLong(f -> f.toFile().length())
                    .sum();
        }
    }
}
