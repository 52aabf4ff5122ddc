package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.edgebridge.central.CentralSim;
import org.edgebridge.central.Faults;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #14: a command's receipts are published in state order. A resend read by the intake while the forwarder
 * commits the command's final must not be answered with a {@code stored} published after the final. The real jar
 * in a child JVM, held by the crash-window hook between the intake's commit (which read the row as in flight) and
 * its receipts, while central's held reply is released and the final is committed and published.
 */
class ReceiptOrderIT {
    @TempDir
    Path dir;

    @Test
    void a_resend_read_before_the_final_was_committed_is_not_answered_with_stored_after_the_final() throws Exception {
        Path marker = dir.resolve("in-window");
        try (CentralSim central = TestSite.central(Optional.empty(), 16L * 1024 * 1024);
                BridgeProcess bridge = new BridgeProcess(
                                BridgeProcess.logFile("receipt-order"),
                                List.of(
                                        "-Dedgebridge.test.hook=AFTER_INTAKE_COMMIT",
                                        "-Dedgebridge.test.hookSkip=1",
                                        "-Dedgebridge.test.hookHoldMs=3000",
                                        "-Dedgebridge.test.hookMarker=" + marker),
                                "data.dir=" + dir.resolve("data"),
                                "mqtt.host=127.0.0.1",
                                "mqtt.port=any",
                                "auth.anonymous=true",
                                "ingest.url=http://127.0.0.1:" + central.port() + "/ingest")
                        .start();
                DeviceSimulator device = DeviceSimulator.of("dev-order", bridge.mqttPort())) {
            device.connectAndSubscribe();
            central.faults(new Faults("hold_reply", 0, null, false, 0, 60_000, 1));
            String command = DeviceSimulator.command("ORD-1", "");
            device.publish("t", command);
            device.awaitReceipt("ORD-1", "stored");
            await().atMost(DeviceSimulator.WAIT).until(() -> central.holdingReplies() > 0);
            // the resend: its commit reads the row in flight, then the hook holds (and its PUBACK waits for the answer)
            device.publishWithoutWaiting(
                    "devices/dev-order/commands/t", command.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            await().atMost(DeviceSimulator.WAIT).until(() -> Files.exists(marker));
            central.releaseHeldReplies(); // the final is committed and published while the resend's answer waits
            device.awaitFinal("ORD-1");
            await().atMost(DeviceSimulator.WAIT)
                    .until(() -> device.receiptsFor("ORD-1").size() >= 3);
            List<String> statuses = device.receiptsFor("ORD-1").stream()
                    .map(r -> r.path("status").asText())
                    .toList();
            int firstFinal = statuses.indexOf("accepted");
            assertThat(statuses.subList(firstFinal, statuses.size()))
                    .as("receipts after the final: " + statuses)
                    .doesNotContain("stored");
            JsonNode last = device.receiptsFor("ORD-1").get(statuses.size() - 1);
            assertThat(last.path("replayed").asBoolean()).isTrue();
            assertThat(bridge.log()).contains("test hook: holding at AFTER_INTAKE_COMMIT");
        }
    }
}
