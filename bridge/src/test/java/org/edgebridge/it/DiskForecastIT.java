package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;

/**
 * The disk and flash forecast end to end, shipped defaults (outbox.minFreeDisk 256 MiB) but storage.ratedTbw: while
 * nothing reaches central the backlog grows, the forecast gives a time until the disk's room is gone and no time to
 * drain, and the process's writes per command and per day (its real /proc/self/io); once central takes the backlog,
 * the time to drain comes down to "no backlog". The figures are on /api/status (forecast) and /metrics.
 */
class DiskForecastIT {
    @org.junit.jupiter.api.io.TempDir
    java.nio.file.Path dir;

    @Test
    void a_backlog_gives_a_time_until_full_and_writes_per_command_and_a_drained_one_no_backlog() throws Exception {
        try (TestSite site = new TestSite(dir.resolve("data"), "storage.ratedTbw=0.6");
                DeviceSimulator device = site.device("dev-forecast")) {
            device.connectAndSubscribe();
            assertThat(site.post("/api/forwarder/pause", "test-token").statusCode())
                    .isEqualTo(200);
            for (int i = 0; i < 40; i++) {
                device.publish("workorder/arrive", DeviceSimulator.command("FORECAST-" + i, "\"action\":\"ARRIVE\""));
            }
            for (int i = 0; i < 40; i++) {
                device.awaitReceipt("FORECAST-" + i, "stored");
            }
            // the first sample came at start; the next one after the commands gives the rates
            await().atMost(Duration.ofSeconds(40))
                    .until(() -> forecast(site).path("intakePerSecond").asDouble() > 0
                            && forecast(site).path("open").asLong() == 40);
            JsonNode f = forecast(site);
            assertThat(f.path("rows").asLong()).isEqualTo(40);
            assertThat(f.path("outboxBytes").asLong()).isPositive();
            assertThat(f.path("roomBytes").asLong())
                    .isEqualTo(Math.max(0, f.path("freeBytes").asLong() - 256L * 1024 * 1024));
            assertThat(f.path("bytesPerRow").asDouble())
                    .isEqualTo(
                            (double) f.path("outboxBytes").asLong() / 40, org.assertj.core.api.Assertions.within(1.0));
            assertThat(f.path("egressPerSecond").asDouble()).isZero();
            assertThat(f.path("secondsUntilFull").asDouble()).isPositive();
            assertThat(f.path("secondsToDrain").isNull())
                    .as("nothing goes out: no drain")
                    .isTrue();
            assertThat(f.path("writeBytesPerCommand").asDouble())
                    .as("SQLite's WAL and checkpoints, per command")
                    .isPositive();
            assertThat(f.path("writeBytesPerDay").asDouble()).isPositive();
            assertThat(f.path("ratedTbwBytes").asLong()).isEqualTo(600_000_000_000L);
            assertThat(f.path("lifeDaysLeft").asDouble())
                    .isEqualTo(
                            600e9 / f.path("writeBytesPerDay").asDouble(),
                            org.assertj.core.api.Assertions.within(0.01));
            String metrics = site.get("/metrics").body();
            assertThat(metrics)
                    .contains(
                            "edgebridge_outbox_disk_bytes ",
                            "edgebridge_disk_free_bytes ",
                            "edgebridge_outbox_room_bytes ",
                            "edgebridge_forecast_intake_per_second ",
                            "edgebridge_forecast_egress_per_second ",
                            "edgebridge_forecast_full_in_seconds ",
                            "edgebridge_forecast_drain_in_seconds NaN",
                            "edgebridge_forecast_write_bytes_per_command ",
                            "edgebridge_forecast_write_bytes_per_day ",
                            "edgebridge_storage_life_left_seconds ",
                            "edgebridge_process_disk_write_bytes_total ");

            assertThat(site.post("/api/forwarder/resume", "test-token").statusCode())
                    .isEqualTo(200);
            for (int i = 0; i < 40; i++) {
                device.awaitFinal("FORECAST-" + i);
            }
            await().atMost(Duration.ofSeconds(40))
                    .until(() -> forecast(site).path("egressPerSecond").asDouble() > 0
                            && forecast(site).path("open").asLong() == 0);
            assertThat(forecast(site).path("secondsToDrain").asDouble())
                    .as("no backlog")
                    .isZero();
            assertThat(site.get("/metrics").body()).contains("edgebridge_forecast_drain_in_seconds 0.0");
        }
    }

    private static JsonNode forecast(TestSite site) throws Exception {
        return site.getJson("/api/status").path("forecast");
    }
}
