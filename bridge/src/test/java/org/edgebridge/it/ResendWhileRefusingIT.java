package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #14: a resend of a command the outbox already holds is answered from the outbox (its latest receipt),
 * also when new commands are refused because the intake queue is full or the bridge is stopping.
 */
class ResendWhileRefusingIT {
    @TempDir
    Path dir;

    private static byte[] bytes(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private static List<String> statuses(DeviceSimulator device, String id) {
        return device.receiptsFor(id).stream()
                .map(r -> r.path("status").asText())
                .toList();
    }

    @Test
    void a_resend_while_the_bridge_is_stopping_gets_its_final_receipt_not_retry_later() {
        try (TestSite site = new TestSite(dir);
                DeviceSimulator device = site.device("dev-stop")) {
            device.connectAndSubscribe();
            String known = DeviceSimulator.command("KNOWN-1", "");
            device.publish("t", known);
            device.awaitFinal("KNOWN-1");
            site.bridge.intake().stopAccepting();
            device.publish("t", known);
            device.publish("t", DeviceSimulator.command("NEW-1", ""));
            device.awaitReceipt("NEW-1", "retry_later");
            await().atMost(DeviceSimulator.WAIT)
                    .until(() -> device.receiptsFor("KNOWN-1").size() == 3);
            JsonNode replay = device.receiptsFor("KNOWN-1").get(2);
            assertThat(replay.path("status").asText()).isEqualTo("accepted");
            assertThat(replay.path("replayed").asBoolean()).isTrue();
            assertThat(statuses(device, "KNOWN-1")).doesNotContain("retry_later");
        }
    }

    @Test
    void a_resend_while_the_intake_queue_is_full_gets_its_final_receipt_not_retry_later() throws Exception {
        // one connection can fill the queue only past the bounds that keep it from doing so with the defaults: its
        // commands awaiting their commit (mqtt.maxCommandsAwaitingCommit) and the site-wide back-pressure
        // (intake.maxQueuedBytes / mqtt.maxPacketBytes commands waiting: 256 here)
        try (TestSite site = new TestSite(
                        dir,
                        "intake.queueCapacity=100",
                        "mqtt.maxCommandsAwaitingCommit=1000",
                        "intake.maxQueuedBytes=128MiB");
                DeviceSimulator device = site.device("dev-full")) {
            device.connectAndSubscribe();
            String known = DeviceSimulator.command("KNOWN-2", "");
            device.publish("t", known);
            device.awaitFinal("KNOWN-2");
            try (Connection db = DriverManager.getConnection(
                            "jdbc:sqlite:" + site.bridge.outbox().file());
                    Statement s = db.createStatement()) {
                s.execute(
                        "BEGIN IMMEDIATE"); // another writer holds the outbox: the intake writer waits, its queue fills
                for (int i = 1; i <= 130; i++) { // their PUBACKs wait for the commit
                    device.publishWithoutWaiting(
                            "devices/dev-full/commands/t", bytes(DeviceSimulator.command("FILL-" + i, "")));
                }
                await().atMost(DeviceSimulator.WAIT)
                        .until(() -> device.receipts().stream()
                                .anyMatch(r -> r.path("code").asText().equals("intake_busy")));
                device.publishWithoutWaiting(
                        "devices/dev-full/commands/t", bytes(known)); // looked up off the event loop
                await().atMost(DeviceSimulator.WAIT)
                        .until(() -> device.receiptsFor("KNOWN-2").size() == 3);
                s.execute("ROLLBACK");
            }
            JsonNode replay = device.receiptsFor("KNOWN-2").get(2);
            assertThat(replay.path("status").asText()).isEqualTo("accepted");
            assertThat(replay.path("replayed").asBoolean()).isTrue();
            device.awaitFinal("FILL-1");
        }
    }
}
