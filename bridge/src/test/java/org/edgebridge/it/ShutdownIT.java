package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.edgebridge.central.CentralSim;
import org.edgebridge.central.Inbox;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM under load: a clean stop (the shutdown hook runs to its end, within {@link BridgeProcess#stop}'s generous
 * wait) that loses nothing and leaves no claim in flight. How long the stop took is printed, not asserted.
 */
class ShutdownIT {
    @TempDir
    Path dir;

    @Test
    void sigterm_under_load_stops_cleanly_loses_nothing_and_leaves_no_claim_in_flight() throws Exception {
        Path data = dir.resolve("data");
        try (CentralSim central = TestSite.central(Optional.empty(), 1 << 24)) {
            String[] sets = {
                "data.dir=" + data,
                "mqtt.host=127.0.0.1",
                "mqtt.port=any",
                "auth.anonymous=true",
                "ingest.url=http://127.0.0.1:" + central.port() + "/ingest",
                "shutdown.timeout=20s",
                "forwarder.eventsPerSecond=300"
            };
            Map<String, Map<String, String>> sent = new ConcurrentHashMap<>();
            String stopLine;
            try (BridgeProcess bridge = new BridgeProcess(BridgeProcess.logFile("shutdown"), sets).start()) {
                AtomicBoolean load = new AtomicBoolean(true);
                List<Thread> publishers = new ArrayList<>();
                for (int d = 0; d < 4; d++) {
                    String id = "load-" + d;
                    sent.put(id, new LinkedHashMap<>());
                    Thread t = new Thread(
                            () -> {
                                try (DeviceSimulator device = DeviceSimulator.of(id, bridge.mqttPort())) {
                                    device.connectAndSubscribe();
                                    for (int n = 1; load.get(); n++) {
                                        String commandId = id + "-" + n;
                                        String payload = DeviceSimulator.command(commandId, "\"n\":" + n);
                                        synchronized (sent) {
                                            sent.get(id).put(commandId, payload);
                                        }
                                        device.publish("t", payload);
                                    }
                                } catch (RuntimeException stoppedUnderUs) {
                                    // the bridge went away mid-publish: that command is resent after the restart
                                }
                            },
                            "publisher-" + d);
                    publishers.add(t);
                    t.start();
                }
                org.awaitility.Awaitility.await()
                        .atMost(Duration.ofSeconds(30))
                        .until(() -> central.inbox().size() > 500);
                int exit = bridge.stop(); // throws if the process has not ended within 60 s of SIGTERM
                load.set(false);
                for (Thread t : publishers) {
                    t.join(20_000);
                }
                assertThat(exit).as("exit code after SIGTERM").isIn(0, 143);
                assertThat(bridge.log()).as("the shutdown hook ran to its end").contains("edge bridge stopped in");
                stopLine = bridge.log()
                        .lines()
                        .filter(l -> l.contains("edge bridge stopped in"))
                        .reduce((a, b) -> b)
                        .orElseThrow();
            }
            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + data.resolve("outbox.db"));
                    ResultSet rs = c.createStatement()
                            .executeQuery("SELECT COUNT(*) FROM commands WHERE state = 'inflight'")) {
                assertThat(rs.getLong(1)).as("claims left in flight").isZero();
            }
            int total = sent.values().stream().mapToInt(Map::size).sum();
            System.out.printf(
                    "shutdown IT: SIGTERM with %d commands sent and %d applied; the bridge said: %s%n",
                    total, central.inbox().size(), stopLine.substring(stopLine.indexOf("edge bridge stopped in")));

            try (BridgeProcess again = new BridgeProcess(BridgeProcess.logFile("shutdown-restart"), sets).start()) {
                for (Map.Entry<String, Map<String, String>> e : sent.entrySet()) {
                    try (DeviceSimulator device = DeviceSimulator.of(e.getKey(), again.mqttPort())) {
                        device.connectAndSubscribe();
                        device.resendUntilFinal(e.getValue(), "t", Duration.ofSeconds(5), Duration.ofSeconds(120));
                    }
                }
                assertThat(central.inbox().size()).as("every command applied").isEqualTo(total);
                assertThat(central.inbox().entries().stream()
                                .map(Inbox.Entry::eventId)
                                .distinct()
                                .count())
                        .isEqualTo(total);
                assertThat(central.inbox().stats().get("orderingViolations")).isZero();
                again.stop();
            }
        }
    }
}
