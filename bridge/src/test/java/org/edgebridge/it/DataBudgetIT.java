package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.edgebridge.central.CentralSim;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The data budget end to end with gzip to a real reference central: the bytes the bridge counts as sent hold the
 * bodies central received on the wire plus a little for headers; the compression ratio is there; the alarm
 * data_budget_warning comes at 80 % of ingest.dataBudget, data_budget_exceeded at 100 %, and past it every command
 * still reaches central (nothing dropped or held back); the month survives a restart. /api/status, /metrics.
 */
class DataBudgetIT {
    private static final long BUDGET = 1024 * 1024;
    private static final int PAYLOAD_HEX_CHARS =
            100_000; // random hex: gzip halves it, about 50 KB a command on the wire

    @TempDir
    Path dir;

    @Test
    void the_month_counts_what_goes_on_the_wire_alarms_at_80_and_100_percent_drops_nothing_and_survives_a_restart()
            throws Exception {
        String[] sets = {"ingest.compression=gzip", "ingest.dataBudget=1MiB"};
        try (CentralSim central = TestSite.central(Optional.empty(), 16L << 20)) {
            long monthBefore;
            try (TestSite site = TestSite.withCentral(dir.resolve("data"), central, sets);
                    DeviceSimulator device = site.device("dev-metered")) {
                device.connectAndSubscribe();
                int sent = 0;
                while (central.bodyBytes()[0] < 0.8 * BUDGET) { // central's own count of what came on the wire
                    send(device, "METERED-" + sent++);
                }
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> alarmCodes(site).contains("data_budget_warning")
                                || alarmCodes(site).contains("data_budget_exceeded"));
                await().atMost(Duration.ofSeconds(30))
                        .until(() ->
                                budget(site).path("month").path("sentBytes").asLong()
                                        >= central.bodyBytes()[0]); // a reading after the last request
                JsonNode b = budget(site);
                assertThat(b.path("usedRatio").asDouble()).isGreaterThanOrEqualTo(0.8);
                long wireBodies = central.bodyBytes()[0];
                long counted = b.path("month").path("sentBytes").asLong();
                assertThat(counted)
                        .as("the bodies central got, and a little for request lines and headers")
                        .isBetween(wireBodies, wireBodies + sent * 1000L);
                assertThat(b.path("compressionRatio").asDouble()).isBetween(1.5, 2.5);
                assertThat(b.path("topDevices").get(0).path("deviceId").asText())
                        .isEqualTo("dev-metered");
                assertThat(b.path("month").path("receivedBytes").asLong()).isPositive();

                while (central.bodyBytes()[0] < BUDGET) {
                    send(device, "METERED-" + sent++);
                }
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> alarmCodes(site).contains("data_budget_exceeded"));
                assertThat(alarmCodes(site)).doesNotContain("data_budget_warning");
                send(device, "METERED-PAST");
                assertThat(central.inbox().size())
                        .as("past 100 % every command still reaches central")
                        .isEqualTo(sent + 1);
                String metrics = site.get("/metrics").body();
                assertThat(metrics)
                        .contains(
                                "edgebridge_central_sent_bytes_total ",
                                "edgebridge_central_received_bytes_total ",
                                "edgebridge_central_month_bytes ",
                                "edgebridge_central_today_bytes ",
                                "edgebridge_central_compression_ratio ",
                                "edgebridge_data_budget_bytes 1048576.0",
                                "edgebridge_alarm_active{code=\"data_budget_exceeded\"} 1.0");
                assertThat(metrics).containsPattern("edgebridge_data_budget_used_ratio 1\\.\\d+");
                monthBefore = budget(site).path("month").path("sentBytes").asLong();
            }
            try (TestSite again = TestSite.withCentral(dir.resolve("data"), central, sets)) {
                assertThat(budget(again).path("month").path("sentBytes").asLong())
                        .as("the month kept across a restart")
                        .isGreaterThanOrEqualTo(monthBefore);
                assertThat(alarmCodes(again)).contains("data_budget_exceeded");
            }
        }
    }

    private static void send(DeviceSimulator device, String id) {
        byte[] random = new byte[PAYLOAD_HEX_CHARS / 2];
        ThreadLocalRandom.current().nextBytes(random);
        device.publish(
                "workorder/arrive",
                DeviceSimulator.command(id, "\"blob\":\"" + HexFormat.of().formatHex(random) + "\""));
        assertThat(device.awaitFinal(id).path("status").asText()).isEqualTo("accepted");
    }

    private static JsonNode budget(TestSite site) throws Exception {
        return site.getJson("/api/status").path("dataBudget");
    }

    private static java.util.List<String> alarmCodes(TestSite site) throws Exception {
        return site.getJson("/api/status").path("alarms").findValuesAsText("code");
    }
}
