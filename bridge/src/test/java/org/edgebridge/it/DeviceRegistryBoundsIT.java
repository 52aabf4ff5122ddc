package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.edgebridge.bench.RawMqttClient;
import org.edgebridge.broker.Broker;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Issue 24, point 3: refused clients filled the device list. A refused will was recorded in the device registry
 * before credentials were checked and entries were never dropped: 15,000 CONNECTs with random ids, all refused, left
 * 15,000 phantom devices in {@code /api/devices} (4.5 MB) and 15,000 log lines. Now only client ids that logged in
 * enter the registry, it keeps at most {@code mqtt.maxKnownDevices}, and refusal lines are limited per kind in total.
 */
class DeviceRegistryBoundsIT extends OneDeviceSite {
    private static final int REFUSED_CONNECTS = 15_000;

    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    private final Logger brokerLog = (Logger) LoggerFactory.getLogger(Broker.class);

    DeviceRegistryBoundsIT() {
        super("field-node-1");
    }

    @BeforeEach
    void captureBrokerLog() {
        lines.start();
        brokerLog.addAppender(lines);
    }

    @AfterEach
    void releaseBrokerLog() {
        brokerLog.detachAppender(lines);
    }

    @Test
    void fifteen_thousand_refused_connects_with_random_ids_leave_no_phantom_devices_and_ten_log_lines()
            throws Exception {
        AtomicInteger refused = new AtomicInteger();
        IntStream.range(0, 4).parallel().forEach(worker -> {
            for (int i = worker; i < REFUSED_CONNECTS; i += 4) {
                String id = UUID.randomUUID().toString();
                // a Last Will on another device's receipts: CONNACK 5, before any credentials are looked at
                if (connect(RawMqttClient.Connect.of(id)
                                .withWill("devices/field-node-1/receipts", "{}".getBytes(StandardCharsets.UTF_8)))
                        == 5) {
                    refused.incrementAndGet();
                }
            }
        });
        assertThat(refused.get()).isEqualTo(REFUSED_CONNECTS);
        device.publish("workorder/arrive", DeviceSimulator.command("WO-1", "\"workOrderId\":\"WO-1\""));
        device.awaitReceipt("WO-1", "accepted");

        JsonNode devices = site.getJson("/api/devices").path("devices");
        assertThat(devices).extracting(d -> d.path("clientId").asText()).containsExactly("field-node-1");
        long willLines = lines.list.stream()
                .filter(e -> e.getFormattedMessage().contains("its Last Will is on"))
                .count();
        assertThat(willLines).isLessThanOrEqualTo(10);
        JsonNode limits = status().path("broker").path("limits");
        assertThat(limits.path("knownDevices").asInt()).isEqualTo(1);
        assertThat(limits.path("refusalLinesLeftOut").asLong()).isGreaterThanOrEqualTo(REFUSED_CONNECTS - 10);
    }

    @Test
    void with_max_known_devices_100_the_registry_keeps_100_of_150_client_ids_and_the_connected_device_among_them()
            throws Exception {
        device.close();
        site.close();
        site = new TestSite(dir, "mqtt.maxKnownDevices=100");
        device = site.device("field-node-1");
        device.connectAndSubscribe();
        for (int i = 0; i < 150; i++) {
            assertThat(connect(RawMqttClient.Connect.of("passing-" + i))).isZero();
        }
        device.publish("workorder/arrive", DeviceSimulator.command("WO-1", "\"workOrderId\":\"WO-1\""));
        device.awaitReceipt("WO-1", "accepted");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> status().path("broker")
                                .path("limits")
                                .path("forgottenDevices")
                                .asLong()
                        == 51);
        JsonNode devices = site.getJson("/api/devices").path("devices");
        assertThat(devices).hasSize(100);
        assertThat(devices).extracting(d -> d.path("clientId").asText()).contains("field-node-1", "passing-149");
    }

    /** Connects, and disconnects if the bridge accepted. @return the CONNACK code */
    private int connect(RawMqttClient.Connect c) {
        try (RawMqttClient client = new RawMqttClient("127.0.0.1", site.mqttPort)) {
            int code = client.connect(c);
            if (code == 0) {
                client.disconnect();
            }
            return code;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
