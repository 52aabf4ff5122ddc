package org.edgebridge.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.hivemq.client.mqtt.mqtt3.message.connect.connack.Mqtt3ConnAck;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.edgebridge.central.CentralSim;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.it.BridgeProcess;
import org.edgebridge.it.Ports;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Another process fills the box's one disk to the last byte (the bridge's own outbox stops at outbox.minFreeDisk;
 * a log or a download does not). The broker's H2 store can then not write a commit, which kills a Moquette session
 * loop. Before, the bridge restarted the broker, the restart could not write either, the store was set aside (every
 * device's session lost) or could not even be moved, and the bridge exited 3, to meet the same full disk at its next
 * start. Now the bridge stays up with the broker down and says why, and once there is room again the broker starts
 * by itself on its intact store: devices find their sessions. Shipped defaults; the bridge as its own process with
 * its data dir on a tmpfs of its own ({@link OutboxDisk}).
 */
class FullDiskIT {
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @TempDir
    Path dir;

    @Test
    void a_disk_filled_by_another_process_stops_the_broker_until_there_is_room_and_keeps_every_session()
            throws Exception {
        OutboxDisk.requireSupported();
        Path dataDir = dir.resolve("data");
        try (CentralSim central = new CentralSim(Optional.empty(), 64L << 20, Clock.systemUTC()).start("127.0.0.1", 0);
                OutboxDisk disk = OutboxDisk.mountWholeDataDir(dataDir);
                BridgeProcess bridge = new BridgeProcess(
                                BridgeProcess.logFile("full-disk"),
                                "data.dir=" + dataDir,
                                "mqtt.host=127.0.0.1",
                                "auth.anonymous=true",
                                "ingest.url=http://127.0.0.1:" + central.port() + "/ingest")
                        .launchedBy(disk.launcher())
                        .start();
                DeviceSimulator a = DeviceSimulator.of("dev-full-a", bridge.mqttPort());
                DeviceSimulator b = DeviceSimulator.of("dev-full-b", bridge.mqttPort())) {
            a.connectAndSubscribe();
            a.publish("t", DeviceSimulator.command("FULL-A1", ""));
            assertThat(a.awaitFinal("FULL-A1").path("status").asText()).isEqualTo("accepted");
            // a's session was acknowledged before now; the store syncs its commits about once a second
            Instant acknowledged = Instant.now();
            await("a's session synced to the broker store")
                    .atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> syncedAfter(status(bridge), acknowledged));

            disk.fill(0);
            // a new persistent session is written to the broker store within a second (its commit timer)
            b.connectAndSubscribe();
            await("the broker down for the full disk")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> status(bridge)
                            .path("broker")
                            .path("downBecause")
                            .asText("")
                            .contains("is full"));
            JsonNode down = status(bridge);
            assertThat(down.path("broker").path("running").asBoolean()).isFalse();
            assertThat(alarm(down, "broker_down")).contains("is full").contains("sessions kept");
            assertThat(ready(bridge))
                    .as("not ready while devices cannot connect")
                    .isEqualTo(503);
            // it tries again every 5 s and keeps waiting: no exit for a supervisor to start it on the same full disk
            long restartsBefore =
                    down.path("broker").path("restartsAfterLoopDeath").asLong();
            await().during(Duration.ofSeconds(12))
                    .atMost(Duration.ofSeconds(15))
                    .until(bridge::isAlive);
            assertThat(status(bridge)
                            .path("broker")
                            .path("restartsAfterLoopDeath")
                            .asLong())
                    .isEqualTo(restartsBefore);
            assertThat(status(bridge).path("broker").path("storeResets").asLong())
                    .as("the store is not set aside")
                    .isZero();

            disk.restore();
            await("the broker back once there is room")
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> status(bridge).path("broker").path("running").asBoolean());
            assertThat(status(bridge).path("broker").path("downBecause").isNull())
                    .isTrue();
            assertThat(ready(bridge)).isEqualTo(200);
            a.disconnect();
            reconnectsToItsSession(a, bridge, "FULL-A2");
            assertThat(bridge.log()).doesNotContain("could not be moved aside");
        }
    }

    /**
     * The bridge starts again (a restart, an update) on a disk with no room left. It cannot: SQLite cannot even open
     * the outbox (its shared memory file cannot grow). Before, it said "[SQLITE_IOERR_SHMSIZE] I/O error within
     * xShmMap"; now it says that the disk is full and what to do, and once there is room it starts with the device's
     * session, which the failed starts did not touch.
     */
    @Test
    void a_start_on_a_full_disk_says_so_and_the_next_start_with_room_finds_every_session() throws Exception {
        OutboxDisk.requireSupported();
        Path dataDir = dir.resolve("data");
        int mqttPort = Ports.freeOutsideEphemeralRange();
        try (CentralSim central = new CentralSim(Optional.empty(), 64L << 20, Clock.systemUTC()).start("127.0.0.1", 0);
                OutboxDisk disk = OutboxDisk.mountWholeDataDir(dataDir)) {
            String[] sets = {
                "data.dir=" + dataDir,
                "mqtt.host=127.0.0.1",
                "mqtt.port=" + mqttPort,
                "auth.anonymous=true",
                "ingest.url=http://127.0.0.1:" + central.port() + "/ingest"
            };
            Path log = BridgeProcess.logFile("full-disk-start");
            try (BridgeProcess first = new BridgeProcess(log, sets)
                            .launchedBy(disk.launcher())
                            .start();
                    DeviceSimulator a = DeviceSimulator.of("dev-start-a", mqttPort)) {
                a.connectAndSubscribe();
                a.publish("t", DeviceSimulator.command("START-A1", ""));
                assertThat(a.awaitFinal("START-A1").path("status").asText()).isEqualTo("accepted");
                first.stop();
            }
            disk.fill(0);
            try (BridgeProcess refused = new BridgeProcess(log, sets).launchedBy(disk.launcher())) {
                assertThatThrownBy(refused::start)
                        .hasMessageContaining("exited with 1")
                        .hasMessageContaining("is full (")
                        .hasMessageContaining("free space on that disk and start it again");
            }
            disk.restore();
            try (BridgeProcess again = new BridgeProcess(log, sets)
                            .launchedBy(disk.launcher())
                            .start();
                    DeviceSimulator a = DeviceSimulator.of("dev-start-a", mqttPort)) {
                reconnectsToItsSession(a, again, "START-A2");
            }
        }
    }

    /**
     * The device's session is still there after the full disk (sessionPresent=1), the receipt of a new command comes
     * through the subscription kept in it (no SUBSCRIBE since), and no store was set aside.
     */
    private static void reconnectsToItsSession(DeviceSimulator device, BridgeProcess bridge, String commandId)
            throws Exception {
        Mqtt3ConnAck again = device.connect();
        assertThat(again.isSessionPresent())
                .as("the session survived the full disk")
                .isTrue();
        device.publish("t", DeviceSimulator.command(commandId, ""));
        assertThat(device.awaitFinal(commandId).path("status").asText()).isEqualTo("accepted");
        assertThat(status(bridge).path("broker").path("storeResets").asLong()).isZero();
    }

    private static boolean syncedAfter(JsonNode status, Instant instant) {
        String at = status.path("broker").path("sessionsSyncedAt").asText("");
        return !at.isEmpty() && Instant.parse(at).isAfter(instant);
    }

    private static String alarm(JsonNode status, String code) {
        for (JsonNode a : status.path("alarms")) {
            if (code.equals(a.path("code").asText())) {
                return a.path("message").asText();
            }
        }
        throw new AssertionError("no alarm " + code + " in " + status.path("alarms"));
    }

    private static JsonNode status(BridgeProcess bridge) throws Exception {
        HttpResponse<String> r = HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + bridge.adminPort() + "/api/status"))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        return DeviceSimulator.JSON.readTree(r.body());
    }

    private static int ready(BridgeProcess bridge) throws Exception {
        return HTTP.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + bridge.adminPort() + "/health/ready"))
                                .timeout(Duration.ofSeconds(5))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .statusCode();
    }
}
