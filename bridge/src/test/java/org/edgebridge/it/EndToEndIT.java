package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.hivemq.client.mqtt.mqtt3.message.subscribe.suback.Mqtt3SubAckReturnCode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.edgebridge.central.Inbox;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.outbox.CommandState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole path of a command with real parts: MQTT client → broker → SQLite outbox → HTTP central → receipt. */
class EndToEndIT {
    @TempDir
    java.nio.file.Path dir;

    TestSite site;

    @BeforeEach
    void start() {
        site = new TestSite(dir);
    }

    @AfterEach
    void stop() {
        site.close();
    }

    @Test
    void device_gets_stored_then_accepted_and_central_applies_each_command_once() throws Exception {
        try (DeviceSimulator device = site.device("field-node-07")) {
            device.connectAndSubscribe();
            List<String> ids = List.of("ARRIVE-WO-1", "ARRIVE-WO-2", "ARRIVE-WO-3", "ARRIVE-WO-4", "ARRIVE-WO-5");
            for (String id : ids) {
                device.publish("workorder/arrive", DeviceSimulator.command(id, "\"workOrderId\":\"WO-1\",\"n\":1.50"));
            }
            for (String id : ids) {
                JsonNode accepted = device.awaitReceipt(id, "accepted");
                assertThat(accepted.path("final").asBoolean()).isTrue();
                assertThat(accepted.path("replayed").asBoolean()).isFalse();
                assertThat(accepted.path("result").path("inboxId").asLong()).isPositive();
                List<JsonNode> receipts = device.receiptsFor(id);
                assertThat(receipts.get(0).path("status").asText())
                        .as("stored comes first")
                        .isEqualTo("stored");
                assertThat(receipts.get(0).path("sequence").asLong())
                        .isEqualTo(accepted.path("sequence").asLong());
                String payload = DeviceSimulator.command(id, "\"workOrderId\":\"WO-1\",\"n\":1.50");
                assertThat(accepted.path("payloadSha256").asText()).isEqualTo(sha256(payload));
            }
            Map<String, Long> applied = site.central.inbox().entries().stream()
                    .collect(Collectors.groupingBy(Inbox.Entry::eventId, Collectors.counting()));
            assertThat(applied).hasSize(5).allSatisfy((id, n) -> assertThat(n).isEqualTo(1));
            assertThat(site.central.inbox().entries()).allSatisfy(e -> {
                assertThat(e.deliveries()).isEqualTo(1);
                assertThat(e.deviceId()).isEqualTo("field-node-07");
            });
            Inbox.Entry first = site.central.inbox().entries().get(0);
            assertThat(first.payloadJson()).as("payload forwarded unchanged").contains("\"n\":1.50");
            assertThat(site.bridge.outbox().reads().counts().count(CommandState.ACCEPTED))
                    .isEqualTo(5);
        }
    }

    @Test
    void resent_command_after_its_final_receipt_gets_replayed_receipt_and_is_not_forwarded_again() {
        try (DeviceSimulator device = site.device("dev-replay")) {
            device.connectAndSubscribe();
            String payload = DeviceSimulator.command("CMD-1", "\"action\":\"ARRIVE\"");
            device.publish("workorder/arrive", payload);
            JsonNode first = device.awaitReceipt("CMD-1", "accepted");

            device.publish("workorder/arrive", payload);
            await().atMost(DeviceSimulator.WAIT)
                    .until(() -> device.receiptsFor("CMD-1").size() == 3);
            JsonNode replay = device.receiptsFor("CMD-1").get(2);
            assertThat(replay.path("status").asText()).isEqualTo("accepted");
            assertThat(replay.path("replayed").asBoolean()).isTrue();
            assertThat(replay.path("result")).isEqualTo(first.path("result"));
            assertThat(replay.path("sequence").asLong()).isEqualTo(1);

            assertThat(site.central.inbox().entries()).hasSize(1);
            assertThat(site.central.inbox().entries().get(0).deliveries()).isEqualTo(1);
            assertThat(site.central.inbox().stats().get("duplicates")).isZero();
        }
    }

    @Test
    void same_command_id_with_other_bytes_is_rejected_and_the_original_is_untouched() {
        try (DeviceSimulator device = site.device("dev-reuse")) {
            device.connectAndSubscribe();
            device.publish("x", DeviceSimulator.command("CMD-R", "\"v\":1"));
            device.awaitReceipt("CMD-R", "accepted");
            String changed = DeviceSimulator.command("CMD-R", "\"v\":2");
            device.publish("x", changed);
            await().atMost(DeviceSimulator.WAIT)
                    .until(() -> device.receiptsFor("CMD-R").stream()
                            .anyMatch(r ->
                                    "command_id_reused".equals(r.path("code").asText(null))));
            JsonNode rejected = device.receiptsFor("CMD-R").stream()
                    .filter(r -> "command_id_reused".equals(r.path("code").asText(null)))
                    .findFirst()
                    .orElseThrow();
            assertThat(rejected.path("status").asText()).isEqualTo("rejected");
            assertThat(rejected.path("final").asBoolean()).isTrue();
            assertThat(rejected.path("payloadSha256").asText()).isEqualTo(sha256(changed));
            assertThat(rejected.path("sequence").isNull()).isTrue();
            assertThat(site.central.inbox().entries()).hasSize(1);
            assertThat(site.central.inbox().entries().get(0).payloadJson()).contains("\"v\":1");
        }
    }

    @Test
    void commands_from_three_devices_interleaved_get_sequences_in_publish_order_per_device() {
        List<DeviceSimulator> devices = List.of(site.device("dev-a"), site.device("dev-b"), site.device("dev-c"));
        try {
            devices.forEach(DeviceSimulator::connectAndSubscribe);
            int perDevice = 20;
            for (int i = 1; i <= perDevice; i++) {
                for (DeviceSimulator d : devices) {
                    d.publish("step", DeviceSimulator.command(d.clientId() + "-" + i, "\"i\":" + i));
                }
            }
            for (DeviceSimulator d : devices) {
                for (int i = 1; i <= perDevice; i++) {
                    JsonNode stored = d.awaitReceipt(d.clientId() + "-" + i, "stored");
                    assertThat(stored.path("sequence").asLong())
                            .as(d.clientId() + " command " + i)
                            .isEqualTo(i);
                }
                d.awaitFinal(d.clientId() + "-" + perDevice);
            }
            await().atMost(DeviceSimulator.WAIT)
                    .until(() -> site.central.inbox().size() == 3 * perDevice);
            assertThat(site.central.inbox().stats().get("orderingViolations")).isZero();
            for (Inbox.Entry e : site.central.inbox().entries()) {
                assertThat(e.eventId()).isEqualTo(e.deviceId() + "-" + e.sequence());
            }
        } finally {
            devices.forEach(DeviceSimulator::close);
        }
    }

    @Test
    void bad_payloads_get_rejected_receipts_with_stable_codes_and_the_connection_keeps_serving() {
        try (DeviceSimulator device = site.device("dev-bad")) {
            device.connectAndSubscribe();
            device.publish("x", "not json");
            device.publish("x", "[1,2]");
            device.publish("x", "{\"type\":\"x\"}");
            device.publish("x", "{\"commandId\":\"-starts-with-dash\"}");
            device.publish("x", "{\"commandId\":\"BIG\",\"pad\":\"" + "x".repeat(262_144) + "\"}");
            device.publish("x", DeviceSimulator.command("GOOD-1", ""));
            device.awaitReceipt("GOOD-1", "accepted");
            await().atMost(DeviceSimulator.WAIT).until(() -> device.receipts().size() >= 7);
            List<String> codes = device.receipts().stream()
                    .filter(r -> "rejected".equals(r.path("status").asText()))
                    .map(r -> r.path("code").asText())
                    .toList();
            assertThat(codes)
                    .containsExactly(
                            "invalid_json",
                            "invalid_json",
                            "missing_command_id",
                            "invalid_command_id",
                            "payload_too_large");
            JsonNode invalid = device.receipts().get(0);
            assertThat(invalid.path("commandId").isNull()).isTrue();
            assertThat(invalid.path("topic").asText()).isEqualTo("devices/dev-bad/commands/x");
            assertThat(invalid.path("payloadSha256").asText()).isEqualTo(sha256("not json"));
            JsonNode tooLarge = device.receipts().stream()
                    .filter(r -> "payload_too_large".equals(r.path("code").asText()))
                    .findFirst()
                    .orElseThrow();
            assertThat(tooLarge.path("commandId").asText()).isEqualTo("BIG");
            assertThat(site.central.inbox().entries())
                    .extracting(Inbox.Entry::eventId)
                    .containsExactly("GOOD-1");
            assertThat(site.bridge.intake().stats().rejectedByCode())
                    .containsEntry("invalid_json", 2L)
                    .containsEntry("missing_command_id", 1L)
                    .containsEntry("invalid_command_id", 1L)
                    .containsEntry("payload_too_large", 1L);
            try (DeviceSimulator other = site.device("dev-other")) {
                other.connectAndSubscribe();
                other.publish("x", DeviceSimulator.command("OTHER-1", ""));
                other.awaitReceipt("OTHER-1", "accepted");
            }
        }
    }

    @Test
    void publish_to_another_devices_topic_closes_the_connection_and_subscribe_outside_own_receipts_gets_0x80() {
        try (DeviceSimulator intruder = site.device("dev-intruder");
                DeviceSimulator victim = site.device("dev-victim")) {
            victim.connectAndSubscribe();
            intruder.connect();
            assertThat(intruder.subscribe("devices/#").getReturnCodes()).containsExactly(Mqtt3SubAckReturnCode.FAILURE);
            assertThat(intruder.subscribe("devices/dev-victim/receipts").getReturnCodes())
                    .containsExactly(Mqtt3SubAckReturnCode.FAILURE);
            assertThat(intruder.subscribe("devices/dev-intruder/receipts").getReturnCodes())
                    .containsExactly(Mqtt3SubAckReturnCode.SUCCESS_MAXIMUM_QOS_1);
            // no PUBACK comes back: the bridge closes the connection instead
            intruder.publishWithoutWaiting(
                    "devices/dev-victim/commands/x",
                    DeviceSimulator.command("EVIL", "").getBytes(StandardCharsets.UTF_8));
            await().atMost(DeviceSimulator.WAIT).until(() -> !intruder.isConnected());
            victim.publish("x", DeviceSimulator.command("LEGIT", ""));
            victim.awaitReceipt("LEGIT", "accepted");
            assertThat(intruder.receipts())
                    .as("no receipt of another device reaches the intruder")
                    .isEmpty();
            assertThat(site.central.inbox().entries())
                    .extracting(Inbox.Entry::eventId)
                    .containsExactly("LEGIT");
            assertThat(site.bridge.broker().status().deniedPublishes()).isEqualTo(1);
        }
    }

    static String sha256(String s) throws RuntimeException {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
