package org.edgebridge.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.edgebridge.central.CentralSim;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.it.BridgeProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 40 point 4, the disk floor, with the SHIPPED DEFAULTS (outbox.minFreeDisk 256 MiB) in a bridge process whose
 * outbox is on a small tmpfs of its own ({@link OutboxDisk}): central is away and one device sends 250 KB commands
 * until the disk is at its floor, where every device gets {@code outbox_full}. Before, the refusal never cleared by
 * itself: final rows kept their payloads for outbox.retention (7 days) and purged pages stayed in SQLite's freelist.
 * Now, once central is back and has taken the commands, their payloads are dropped, the file's free pages count as
 * free disk, and the site takes commands again by itself.
 */
class DiskFloorRecoveryIT {
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final String TOKEN = "disk-floor-admin-token";
    private static final int PAD = 250_000;
    /** Room left above outbox.minFreeDisk (256 MiB) when the disk is made small: KiB. */
    private static final int ABOVE_FLOOR_KIB = 256 * 1024 + 24 * 1024;

    @TempDir
    Path dir;

    @Test
    void one_device_fills_the_box_to_the_disk_floor_and_the_site_recovers_by_itself_once_central_took_its_commands()
            throws Exception {
        OutboxDisk.requireSupported();
        Path dataDir = dir.resolve("data");
        try (CentralSim central = new CentralSim(Optional.empty(), 64L << 20, Clock.systemUTC()).start("127.0.0.1", 0);
                OutboxDisk disk = OutboxDisk.mount(dataDir, dir.resolve("broker-store"));
                BridgeProcess bridge = new BridgeProcess(
                                BridgeProcess.logFile("disk-floor"),
                                "data.dir=" + dataDir,
                                "mqtt.host=127.0.0.1",
                                "auth.anonymous=true",
                                "admin.token=" + TOKEN,
                                "ingest.url=http://127.0.0.1:" + central.port() + "/ingest")
                        .launchedBy(disk.launcher())
                        .start();
                DeviceSimulator hog = DeviceSimulator.of("dev-hog", bridge.mqttPort());
                DeviceSimulator other = DeviceSimulator.of("dev-other", bridge.mqttPort())) {
            hog.connectAndSubscribe();
            other.connectAndSubscribe();
            assertThat(post(bridge, "/api/forwarder/pause")).isEqualTo(200); // central away: nothing becomes final
            disk.fill(ABOVE_FLOOR_KIB);
            String pad = "\"pad\":\"" + "x".repeat(PAD) + "\"";
            List<String> stored = new ArrayList<>();
            String refused = null;
            for (int i = 1; refused == null; i++) {
                String id = "H-" + i;
                hog.publish("t", DeviceSimulator.command(id, pad));
                await().atMost(DeviceSimulator.WAIT)
                        .until(() -> !hog.receiptsFor(id).isEmpty());
                JsonNode first = hog.receiptsFor(id).get(0);
                if (first.path("status").asText().equals("stored")) {
                    stored.add(id);
                } else {
                    assertThat(first.path("code").asText()).as(first.toString()).isEqualTo("outbox_full");
                    refused = id;
                }
                assertThat(i).as("at the floor within the room left").isLessThan(200);
            }
            other.publish("t", DeviceSimulator.command("O-1", ""));
            assertThat(other.awaitReceipt("O-1", "retry_later").path("code").asText())
                    .as("at the disk floor every device waits")
                    .isEqualTo("outbox_full");
            assertThat(alarms(bridge)).contains("low_disk");

            Instant back = Instant.now();
            assertThat(post(bridge, "/api/forwarder/resume")).isEqualTo(200); // central back
            for (String id : stored) {
                assertThat(hog.awaitFinal(id).path("status").asText()).isEqualTo("accepted");
            }
            // free pages are given back at the purge run, once a minute: two runs and slack on a loaded machine
            await().atMost(Duration.ofSeconds(150))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> !alarms(bridge).contains("low_disk"));
            Duration recovered = Duration.between(back, Instant.now());
            long freePages = status(bridge).path("outbox").path("freePageBytes").asLong();
            assertThat(freePages)
                    .as("the dropped payloads are free pages of the file, counted as room")
                    .isGreaterThan((long) stored.size() * PAD / 2);
            // then the purge run gives the free pages back to the file system; the write-ahead log the burst left as
            // large as the payloads must not keep the disk below its floor (it did: SQLite never shrinks that file)
            await().atMost(Duration.ofSeconds(150))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> status(bridge)
                                    .path("outbox")
                                    .path("retention")
                                    .path("pagesGivenBack")
                                    .asLong()
                            > 0);
            await().atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> !alarms(bridge).contains("low_disk"));
            other.publish("t", DeviceSimulator.command("O-1", ""));
            other.awaitReceipt("O-1", "stored");
            hog.publish("t", DeviceSimulator.command(refused, pad));
            hog.awaitReceipt(refused, "stored");
            assertThat(other.awaitFinal("O-1").path("status").asText()).isEqualTo("accepted");
            assertThat(hog.awaitFinal(refused).path("status").asText()).isEqualTo("accepted");
            System.out.printf(
                    "FIGURES disk floor: dev-hog stored %d commands of 250 KB before outbox_full; the site took "
                            + "commands again %d ms after central came back, no operator, with %d MB of free pages in the file%n",
                    stored.size(), recovered.toMillis(), freePages / 1_000_000);
        }
    }

    private static List<String> alarms(BridgeProcess bridge) throws Exception {
        return status(bridge).path("alarms").findValuesAsText("code");
    }

    private static JsonNode status(BridgeProcess bridge) throws Exception {
        HttpResponse<String> r = HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + bridge.adminPort() + "/api/status"))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        return DeviceSimulator.JSON.readTree(r.body());
    }

    private static int post(BridgeProcess bridge, String path) throws Exception {
        return HTTP.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + bridge.adminPort() + path))
                                .header("Authorization", "Bearer " + TOKEN)
                                .POST(HttpRequest.BodyPublishers.noBody())
                                .timeout(Duration.ofSeconds(5))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .statusCode();
    }
}
