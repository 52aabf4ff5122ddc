package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.edgebridge.central.CentralSim;
import org.edgebridge.central.Inbox;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Commands stored while central is down survive a restart of the bridge process: once after a clean stop
 * (SIGTERM), once after {@code kill -9}. The bridge must start again both times, and the device must end
 * with a final receipt for every command, applied at central exactly once.
 */
class RestartIT {
    private static final int COMMANDS = 5;

    @TempDir
    Path dir;

    @Test
    void stored_commands_are_forwarded_after_a_clean_restart_and_the_session_is_still_there() throws Exception {
        restartScenario(false);
    }

    @Test
    void stored_commands_are_forwarded_after_kill_9_and_the_bridge_starts_again() throws Exception {
        restartScenario(true);
    }

    /**
     * Moquette 0.17's stop interrupts the store's commit under way, and the store then spins in its close: the stop
     * hung 15 s (BoundedStop's limit) and every session of the last seconds was gone after the restart, in 2 of 4
     * clean stops right after 200 devices subscribed (docs/moquette.md). Three rounds: the race hit about one stop in
     * three.
     */
    @Test
    void a_clean_stop_right_after_many_devices_subscribed_is_quick_and_every_session_comes_back() throws Exception {
        int devices = 200;
        String[] sets = {
            "data.dir=" + dir.resolve("data"),
            "mqtt.host=127.0.0.1",
            "mqtt.port=any",
            "auth.anonymous=true",
            "ingest.url=http://127.0.0.1:9/ingest"
        };
        Path log = BridgeProcess.logFile("restart-many-sessions");
        for (int round = 1; round <= 3; round++) {
            List<DeviceSimulator> fleet = new ArrayList<>();
            try (BridgeProcess bridge = new BridgeProcess(log, sets).start()) {
                // all at once, as devices do after a site's power comes back; the stop follows the last SUBACK at once
                List<java.util.concurrent.CompletableFuture<?>> subscribed = new ArrayList<>();
                for (int d = 0; d < devices; d++) {
                    DeviceSimulator device = DeviceSimulator.of("dev-many-" + d, bridge.mqttPort());
                    fleet.add(device);
                    int n = d;
                    boolean expectPresent = round > 1;
                    subscribed.add(device.connectAsync(false).thenCompose(ack -> {
                        assertThat(ack.isSessionPresent())
                                .as("device %d: its session from the round before", n)
                                .isEqualTo(expectPresent);
                        return device.subscribeAsync("devices/dev-many-" + n + "/receipts");
                    }));
                }
                java.util.concurrent.CompletableFuture.allOf(
                                subscribed.toArray(java.util.concurrent.CompletableFuture[]::new))
                        .get(60, java.util.concurrent.TimeUnit.SECONDS);
                long stopStart = System.nanoTime();
                assertThat(bridge.stop()).as("exit code after SIGTERM").isIn(0, 143);
                Duration stop = Duration.ofNanos(System.nanoTime() - stopStart);
                System.out.printf(
                        "FIGURES clean stop with %d sessions, round %d: %d ms%n", devices, round, stop.toMillis());
                assertThat(bridge.log()).doesNotContain("Moquette's stop did not end");
            } finally {
                fleet.forEach(DeviceSimulator::close);
            }
        }
    }

    private void restartScenario(boolean kill) throws Exception {
        // central is down while the first bridge runs and comes up on this port for the second: the port must be
        // known before central starts, and outside the ephemeral range so no outgoing connection takes it meanwhile
        int centralPort = Ports.freeOutsideEphemeralRange();
        String[] sets = {
            "data.dir=" + dir.resolve("data"),
            "mqtt.host=127.0.0.1",
            "mqtt.port=any",
            "auth.anonymous=true",
            "ingest.url=http://127.0.0.1:" + centralPort + "/ingest",
            "forwarder.backoffInitial=100ms",
            "forwarder.backoffMax=1s"
        };
        Path log = BridgeProcess.logFile("restart-" + (kill ? "kill9" : "sigterm"));
        List<String> ids = new ArrayList<>();
        for (int i = 1; i <= COMMANDS; i++) {
            ids.add("RESTART-" + i);
        }
        try (BridgeProcess first = new BridgeProcess(log, sets).start();
                DeviceSimulator device = DeviceSimulator.of("dev-restart", first.mqttPort())) {
            assertThat(device.connect().isSessionPresent()).isFalse();
            device.subscribe("devices/dev-restart/receipts");
            FileTime storeBeforeCommands = brokerStoreWrittenAt(dir.resolve("data"));
            for (String id : ids) {
                device.publish("workorder/arrive", DeviceSimulator.command(id, "\"restart\":true"));
            }
            for (String id : ids) {
                device.awaitReceipt(id, "stored");
            }
            // central is down: nothing can be final yet
            assertThat(device.receipts())
                    .allSatisfy(r -> assertThat(r.path("final").asBoolean()).isFalse());
            // the broker's store commits once a second: the subscription (and the receipts' queue) is on the disk
            // once the store file has been written after it
            await("broker store committed after the subscription")
                    .atMost(DeviceSimulator.WAIT)
                    .until(() -> brokerStoreWrittenAt(dir.resolve("data")).compareTo(storeBeforeCommands) > 0);
            if (kill) {
                first.kill9();
            } else {
                assertThat(first.stop()).as("exit code after SIGTERM").isIn(0, 143);
            }
        }

        try (CentralSim central = new CentralSim(Optional.empty(), 16L * 1024 * 1024, Clock.systemUTC())
                        .start("127.0.0.1", centralPort);
                BridgeProcess second = new BridgeProcess(log, sets).start();
                DeviceSimulator device = DeviceSimulator.of("dev-restart", second.mqttPort())) {
            boolean sessionPresent = device.connect().isSessionPresent();
            if (!kill) {
                assertThat(sessionPresent)
                        .as("persistent session after a clean restart")
                        .isTrue();
            }
            if (!sessionPresent) {
                device.subscribe("devices/dev-restart/receipts");
            }
            // a careful device resends what has no final receipt after a while, with the same bytes
            if (kill) {
                Map<String, String> payloads = new LinkedHashMap<>();
                ids.forEach(id -> payloads.put(id, DeviceSimulator.command(id, "\"restart\":true")));
                device.resendUntilFinal(payloads, "workorder/arrive", Duration.ofSeconds(5), Duration.ofSeconds(60));
            }
            for (String id : ids) {
                assertThat(device.awaitFinal(id).path("status").asText()).isEqualTo("accepted");
            }
            await().atMost(DeviceSimulator.WAIT).until(() -> central.inbox().size() == COMMANDS);
            assertThat(central.inbox().entries())
                    .extracting(Inbox.Entry::eventId)
                    .containsExactlyElementsOf(ids);
            assertThat(central.inbox().entries())
                    .allSatisfy(e -> assertThat(e.deliveries()).isEqualTo(1));
            assertThat(central.inbox().entries())
                    .extracting(Inbox.Entry::sequence)
                    .containsExactly(1L, 2L, 3L, 4L, 5L);
            assertThat(second.stop()).isIn(0, 143);
        }
    }

    /** When Moquette last wrote its session store (H2 MVStore) in this data dir. */
    static FileTime brokerStoreWrittenAt(Path dataDir) throws IOException {
        return Files.getLastModifiedTime(dataDir.resolve("broker").resolve("moquette_store.h2"));
    }
}
