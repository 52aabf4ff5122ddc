package org.edgebridge.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23 point 5: receipts are checked before they are believed, with the shipped caps. A receipt that breaks the
 * contract is never finalised, never written to the outbox and never sent to the device; its event is sent again as
 * if it had no receipt; the violation is counted in /metrics and raises the alarm {@code central_receipt_violations}.
 */
class ReceiptViolationsIT {
    @TempDir
    Path dir;

    @Test
    void a_4_mb_result_is_neither_stored_nor_sent_to_the_device_and_the_event_is_sent_again() throws Exception {
        String fourMb = "\"result\":{\"blob\":\"" + "x".repeat(4 * 1000 * 1000) + "\"}";
        try (HostileSite site = new HostileSite(dir)) {
            site.central.then(HostileCentral.receipts("accepted", fourMb));
            DeviceSimulator device = site.device("dev-big-result");
            device.publish("workorder/arrive", DeviceSimulator.command("BIG-1", ""));

            JsonNode accepted = awaitAccepted(device, "BIG-1");
            assertThat(accepted.path("result").isNull()).isTrue();
            assertThat(HostileSite.statuses(device, "BIG-1")).containsExactly("stored", "accepted");
            assertThat(site.central.requests()).hasSize(2);
            assertViolation(site, "oversized", "a result of 4000011 bytes, over ingest.maxReceiptResultBytes (4096)");
            Path db = site.bridge.config().outboxFile();
            assertThat(Files.size(db) + Files.size(db.resolveSibling(db.getFileName() + "-wal")))
                    .isLessThan(1024 * 1024);
            device.close();
        }
    }

    @Test
    void two_receipts_that_differ_for_one_event_finalise_nothing_and_the_device_never_sees_either() throws Exception {
        try (HostileSite site = new HostileSite(dir)) {
            site.central.then(HostileCentral.json(r -> "{\"receipts\":["
                    + HostileCentral.receipt(r.events().get(0), "accepted", "") + ","
                    + HostileCentral.receipt(r.events().get(0), "rejected", "\"code\":\"changed_my_mind\"") + "]}"));
            DeviceSimulator device = site.device("dev-conflict");
            device.publish("workorder/arrive", DeviceSimulator.command("CONFLICT-1", ""));

            awaitAccepted(device, "CONFLICT-1");
            assertThat(HostileSite.statuses(device, "CONFLICT-1")).containsExactly("stored", "accepted");
            assertThat(site.central.requests()).hasSize(2);
            assertViolation(site, "conflicting", "two receipts that differ (accepted and rejected)");
            device.close();
        }
    }

    @Test
    void a_receipt_for_an_event_never_sent_is_counted_and_alarmed_and_changes_nothing() throws Exception {
        try (HostileSite site = new HostileSite(dir)) {
            site.central.then(HostileCentral.json(
                    r -> "{\"receipts\":[" + HostileCentral.receipt(r.events().get(0), "accepted", "")
                            + ",{\"deviceId\":\"someone-else\",\"eventId\":\"NEVER-SENT\",\"status\":\"rejected\"}]}"));
            DeviceSimulator device = site.device("dev-unsent");
            device.publish("workorder/arrive", DeviceSimulator.command("SENT-1", ""));

            awaitAccepted(device, "SENT-1");
            assertThat(site.central.requests()).hasSize(1);
            assertViolation(site, "not_sent", "a receipt for someone-else/NEVER-SENT, which was not in the request");
            assertThat(site.bridge.outbox().reads().devices())
                    .extracting(d -> d.clientId())
                    .containsExactly("dev-unsent");
            device.close();
        }
    }

    private static JsonNode awaitAccepted(DeviceSimulator device, String commandId) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> HostileSite.statuses(device, commandId).contains("accepted"));
        return device.receiptsFor(commandId).stream()
                .filter(r -> r.path("status").asText().equals("accepted"))
                .findFirst()
                .orElseThrow();
    }

    private static void assertViolation(HostileSite site, String kind, String detail) throws Exception {
        JsonNode status = site.status();
        assertThat(status.path("forwarder")
                        .path("receiptViolations")
                        .path("counts")
                        .path(kind)
                        .asLong())
                .isEqualTo(1);
        assertThat(status.path("alarms").findValuesAsText("code")).contains("central_receipt_violations");
        assertThat(status.path("alarms").toString()).contains(detail);
        assertThat(site.metrics()).contains("edgebridge_forwarder_receipt_violations_total{kind=\"" + kind + "\"} 1.0");
    }
}
