package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.edgebridge.bench.RawMqttClient;
import org.edgebridge.central.Inbox;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 24, points 7 and 10, with the shipped defaults: JSON a device sends has bounded depth and number length
 * (intake.maxJsonDepth, intake.maxJsonNumberLength), and a command type follows the identifier rule; both are final
 * {@code rejected} receipts with a stable code, counted in /metrics, and never reach central.
 */
class UntrustedPayloadsIT {
    /** Jackson's own default allows 1,000: a payload this deep went through before and crashed a central parser. */
    private static final int NESTING_990 = 990;

    @TempDir
    Path dir;

    @Test
    void a_payload_nested_990_deep_gets_a_final_rejected_json_limit_exceeded_and_a_good_one_is_still_accepted()
            throws Exception {
        try (TestSite site = new TestSite(dir.resolve("data"));
                DeviceSimulator device = site.device("dev-deep")) {
            device.connectAndSubscribe();
            String deep = "{\"commandId\":\"DEEP-1\",\"n\":" + "[".repeat(NESTING_990 - 1) + "]".repeat(NESTING_990 - 1)
                    + "}";
            device.publish("t", deep);
            device.publish("t", "{\"commandId\":\"NUM-1\",\"n\":" + "7".repeat(1000) + "}");
            device.publish("t", DeviceSimulator.command("GOOD-1", ""));
            device.awaitReceipt("GOOD-1", "accepted");
            await().atMost(DeviceSimulator.WAIT).until(() -> rejected(device, "json_limit_exceeded") == 2);
            JsonNode receipt = device.receipts().stream()
                    .filter(r -> "json_limit_exceeded".equals(r.path("code").asText()))
                    .findFirst()
                    .orElseThrow();
            assertThat(receipt.path("final").asBoolean()).isTrue();
            assertThat(site.central.inbox().entries())
                    .extracting(Inbox.Entry::eventId)
                    .containsExactly("GOOD-1");
            assertThat(site.get("/metrics").body())
                    .contains("edgebridge_intake_rejected_total{code=\"json_limit_exceeded\"} 2.0");
        }
    }

    @Test
    void a_command_type_with_a_lone_surrogate_or_its_replacement_character_is_rejected_invalid_type() throws Exception {
        try (TestSite site = new TestSite(dir.resolve("data"));
                DeviceSimulator device = site.device("dev-type")) {
            device.connectAndSubscribe();
            device.publish("t", "{\"commandId\":\"TYPE-1\",\"type\":\"\\ud800\"}");
            try (RawMqttClient raw = new RawMqttClient("127.0.0.1", site.mqttPort)) {
                assertThat(raw.connect(RawMqttClient.Connect.of("dev-raw"))).isZero();
                ByteArrayOutputStream topic = new ByteArrayOutputStream();
                topic.writeBytes("devices/dev-raw/commands/".getBytes(StandardCharsets.UTF_8));
                // U+FFFD: what a client's UTF-8 encoder makes of a lone surrogate (its raw bytes, ED A0 80, are not
                // UTF-8, and the listener closes such a connection before intake)
                topic.writeBytes(new byte[] {(byte) 0xEF, (byte) 0xBF, (byte) 0xBD});
                raw.publishQos0(
                        topic.toByteArray(),
                        DeviceSimulator.command("TYPE-2", "").getBytes(StandardCharsets.UTF_8));
                await().atMost(DeviceSimulator.WAIT)
                        .until(() -> site.get("/metrics")
                                .body()
                                .contains("edgebridge_intake_rejected_total{code=\"invalid_type\"} 2.0"));
            }
            device.awaitReceipt("TYPE-1", "rejected");
            assertThat(device.receiptsFor("TYPE-1"))
                    .singleElement()
                    .satisfies(r -> assertThat(r.path("code").asText()).isEqualTo("invalid_type"));
            device.publish("workorder/arrive", DeviceSimulator.command("TYPE-3", ""));
            device.awaitReceipt("TYPE-3", "accepted");
            assertThat(site.central.inbox().entries())
                    .extracting(Inbox.Entry::eventId)
                    .containsExactly("TYPE-3");
        }
    }

    @Test
    void an_empty_level_in_the_devices_own_command_topic_gets_an_invalid_type_receipt_and_the_connection_stays()
            throws Exception {
        try (TestSite site = new TestSite(dir.resolve("data"));
                DeviceSimulator device = site.device("dev-levels")) {
            device.connectAndSubscribe();
            device.publish("t/", DeviceSimulator.command("LEVEL-1", ""));
            device.publish("a//b", DeviceSimulator.command("LEVEL-2", ""));
            // the payload's type, when there, is the command's type: the topic's levels are not looked at
            device.publish("t/", "{\"commandId\":\"LEVEL-3\",\"type\":\"workorder/arrive\"}");
            device.awaitReceipt("LEVEL-3", "accepted");
            for (String id : List.of("LEVEL-1", "LEVEL-2")) {
                assertThat(device.awaitReceipt(id, "rejected").path("code").asText())
                        .isEqualTo("invalid_type");
            }
            assertThat(device.isConnected())
                    .as("a PUBLISH on its own topic does not close the connection")
                    .isTrue();
            assertThat(site.central.inbox().entries())
                    .extracting(Inbox.Entry::eventId)
                    .containsExactly("LEVEL-3");
        }
    }

    private static long rejected(DeviceSimulator device, String code) {
        return device.receipts().stream()
                .filter(r -> code.equals(r.path("code").asText()))
                .count();
    }
}
