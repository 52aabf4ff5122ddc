package org.edgebridge.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.outbox.CommandState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23, point 6: central answers 200 but leaves out the receipt of one event, every time. Before, the event was
 * sent again for ever (a missing receipt never counted toward parking) and its device's later commands waited behind
 * it; only a log line said so. Now each missing receipt counts: with the SHIPPED DEFAULTS the event is parked with
 * code central_no_receipt, counted in /metrics, and /api/status raises an alarm.
 */
class MissingReceiptIT {
    @TempDir
    Path dir;

    @Test
    void an_event_whose_receipt_central_always_leaves_out_is_parked_counted_and_alarmed() throws Exception {
        try (HostileSite site = new HostileSite(dir)) {
            site.central.otherwise(HostileCentral.applyingWithout(Set.of("M-1")));
            DeviceSimulator device = site.device("dev-m");
            DeviceSimulator other = site.device("dev-o");
            device.publish("t", DeviceSimulator.command("M-1", ""));
            device.publish("t", DeviceSimulator.command("M-2", ""));
            other.publish("t", DeviceSimulator.command("O-1", ""));
            assertThat(other.awaitFinal("O-1").path("status").asText()).isEqualTo("accepted");
            // a failure counts against M-1 only when central answers another event right after it (docs/forwarding.md,
            // "Blame"): the other device sends now and then
            int[] n = {2};
            await().atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofSeconds(1))
                    .until(() -> {
                        other.publish("t", DeviceSimulator.command("O-" + n[0]++, ""));
                        return site.bridge
                                        .outbox()
                                        .find("dev-m", "M-1")
                                        .orElseThrow()
                                        .state()
                                == CommandState.PARKED;
                    });
            assertThat(site.bridge.outbox().find("dev-m", "M-1").orElseThrow().code())
                    .isEqualTo("central_no_receipt");
            // five counted toward parking, and more for the replies that answered nothing when no other event was sent
            assertThat(site.get("/metrics"))
                    .containsPattern("edgebridge_forwarder_missing_receipts_total ([5-9]|[1-9][0-9]+)\\.0");
            assertThat(site.status().path("alarms").findValuesAsText("code"))
                    .contains("central_missing_receipts", "parked_commands");
            device.publish("t", DeviceSimulator.command("M-3", ""));
            device.awaitReceipt("M-3", "stored");
            assertThat(site.bridge.outbox().find("dev-m", "M-3").orElseThrow().state())
                    .as("behind its parked predecessor")
                    .isEqualTo(CommandState.PENDING);
            assertThat(site.post("/api/outbox/dev-m/M-1/reject").statusCode()).isEqualTo(200);
            assertThat(device.awaitFinal("M-3").path("status").asText()).isEqualTo("accepted");
        }
    }
}
