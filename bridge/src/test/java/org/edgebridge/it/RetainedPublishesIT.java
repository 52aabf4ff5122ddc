package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.moquette.broker.subscriptions.Topic;
import io.moquette.persistence.H2Builder;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttQoS;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.Stream;
import org.edgebridge.bench.RawMqttClient;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 24, point 1: Moquette 0.17 keeps every retained PUBLISH in its store for ever. One device's 1,500 x 100 KB
 * invalid commands with retain=1 grew the store from 16 KB to 161 MB (and it stayed so after a restart). The bridge
 * takes every PUBLISH without its retain flag and clears retained messages an older bridge left, at start.
 */
class RetainedPublishesIT {
    /** 300 x 100 KB at QoS 1, each on its own topic: 30 MB that the old code kept in the store; the shipped defaults otherwise. */
    private static final int FLOOD_PUBLISHES = 300;

    private static final int FLOOD_PAYLOAD_BYTES = 100_000;
    private static final int LEFT_BY_AN_OLDER_BRIDGE = 200;

    @TempDir
    Path dir;

    @Test
    void a_flood_of_300_retained_100_kb_commands_leaves_the_broker_store_small_and_a_device_gets_its_accepted()
            throws Exception {
        long cleared;
        try (TestSite site = new TestSite(dir);
                DeviceSimulator device = site.device("field-node-1")) {
            device.connectAndSubscribe();
            CompletableFuture<Void> flood = CompletableFuture.runAsync(() -> flood(site.mqttPort));
            device.publish("workorder/arrive", DeviceSimulator.command("WO-1", "\"workOrderId\":\"WO-1\""));
            device.awaitReceipt("WO-1", "accepted");
            flood.join(); // the flood's last PINGREQ was answered: every PUBLISH has passed the bridge's listener
            cleared = site.getJson("/api/status")
                    .path("broker")
                    .path("limits")
                    .path("retainFlagsCleared")
                    .asLong();
        }
        assertThat(sizeOf(dir.resolve("broker")))
                .as("broker store bytes after a clean stop")
                .isLessThan(5_000_000);
        assertThat(cleared).isEqualTo(FLOOD_PUBLISHES);
    }

    @Test
    void retained_messages_an_older_bridge_left_in_the_store_are_removed_at_start() throws Exception {
        Path store = Files.createDirectories(dir.resolve("broker"));
        leaveRetained(store, LEFT_BY_AN_OLDER_BRIDGE);
        try (TestSite site = new TestSite(dir);
                DeviceSimulator device = site.device("field-node-1")) {
            assertThat(site.getJson("/api/status")
                            .path("broker")
                            .path("limits")
                            .path("retainedClearedAtStart")
                            .asLong())
                    .isEqualTo(LEFT_BY_AN_OLDER_BRIDGE);
            device.connectAndSubscribe();
            device.publish("workorder/arrive", DeviceSimulator.command("WO-1", "\"workOrderId\":\"WO-1\""));
            device.awaitReceipt("WO-1", "accepted");
        }
        assertThat(retainedLeft(store)).isZero();
    }

    private static void flood(int port) {
        byte[] invalid = new byte[FLOOD_PAYLOAD_BYTES];
        Arrays.fill(invalid, (byte) '{');
        try (RawMqttClient c = new RawMqttClient("127.0.0.1", port)) {
            assertThat(c.connect(RawMqttClient.Connect.of("flooder"))).isZero();
            for (int i = 0; i < FLOOD_PUBLISHES; i++) {
                // QoS 1, one topic each: 0.17 keeps one retained message per topic (and none for QoS 0)
                c.publish("devices/flooder/commands/t" + i, invalid, 1, 1 + i, true);
            }
            c.pingPastEverything();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What a bridge before this fix left: retained commands in Moquette's own H2 store. */
    private static void leaveRetained(Path store, int n) {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        H2Builder h2 = new H2Builder(scheduler, store, 1, Clock.systemUTC()).initStore();
        try {
            var retained = h2.retainedRepository();
            for (int i = 0; i < n; i++) {
                String topic = "devices/node-" + i + "/commands/workorder/arrive";
                retained.retain(
                        new Topic(topic),
                        MqttMessageBuilders.publish()
                                .topicName(topic)
                                .qos(MqttQoS.AT_LEAST_ONCE)
                                .retained(true)
                                .messageId(1)
                                .payload(Unpooled.wrappedBuffer(new byte[1_000]))
                                .build());
            }
        } finally {
            h2.closeStore();
            scheduler.shutdownNow();
        }
    }

    private static long retainedLeft(Path store) {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        H2Builder h2 = new H2Builder(scheduler, store, 1, Clock.systemUTC()).initStore();
        try {
            var retained = h2.retainedRepository();
            long n = 0;
            for (int i = 0; i < LEFT_BY_AN_OLDER_BRIDGE; i++) {
                n += retained.retainedOnTopic("devices/node-" + i + "/commands/workorder/arrive")
                        .size();
            }
            return n;
        } finally {
            h2.closeStore();
            scheduler.shutdownNow();
        }
    }

    private static long sizeOf(Path d) throws IOException {
        try (Stream<Path> files = Files.walk(d)) {
            return files.filter(Files::isRegularFile)
                    .mapToLong(f -> f.toFile().length())
                    .sum();
        }
    }
}
