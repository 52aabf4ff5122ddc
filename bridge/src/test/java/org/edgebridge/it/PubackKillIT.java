package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.edgebridge.LoadsTheMachine;
import org.edgebridge.central.CentralSim;
import org.edgebridge.central.Inbox;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A PUBACK means the command is stored (docs/protocol.md §2), with the shipped defaults: ten devices that trust the
 * PUBACK (QoS 1, 20 in flight each, never resending, {@link TrustingDevice}) publish as fast as the bridge answers, and
 * the bridge, a real process, is killed with {@code kill -9} in the middle of their stream five times; every command
 * that got its PUBACK must reach central. Measured before the change (PUBACK on arrival): 3,989 of 12,025 lost (issue
 * 42); {@code -DpubackAfterCommitIT.switch=false} runs the old order again, and fails.
 */
@LoadsTheMachine
class PubackKillIT {
    private static final int DEVICES = 10;
    private static final int WINDOW = 20;
    private static final int KILLS = 5;

    @TempDir
    Path dir;

    @Test
    void devices_that_trust_the_puback_lose_no_command_over_five_kill_9_mid_stream() throws Exception {
        int mqttPort = Ports.freeOutsideEphemeralRange();
        int centralPort = Ports.free();
        List<String> settings = new ArrayList<>(List.of(
                "data.dir=" + dir.resolve("data"),
                "mqtt.host=127.0.0.1",
                "mqtt.port=" + mqttPort,
                "auth.anonymous=true",
                "ingest.url=http://127.0.0.1:" + centralPort + "/ingest"));
        // -DpubackAfterCommitIT.switch=false measures the old order (PUBACK on arrival) for comparison; it fails then
        Optional.ofNullable(System.getProperty("pubackAfterCommitIT.switch"))
                .ifPresent(v -> settings.add("mqtt.pubackAfterCommit=" + v));
        String[] sets = settings.toArray(String[]::new);
        Set<String> acked = ConcurrentHashMap.newKeySet();
        int sent = 0;
        Path log = BridgeProcess.logFile("puback-after-commit");
        try (CentralSim central =
                new CentralSim(Optional.empty(), 1 << 24, Clock.systemUTC()).start("127.0.0.1", centralPort)) {
            for (int round = 1; round <= KILLS; round++) {
                List<TrustingDevice> fleet = new ArrayList<>();
                try (BridgeProcess bridge = new BridgeProcess(log, sets).start()) {
                    int before = acked.size();
                    int target = 1_000 + 200 * round; // a different point of the stream each time
                    AtomicInteger unlimited = new AtomicInteger(Integer.MAX_VALUE);
                    for (int d = 0; d < DEVICES; d++) {
                        fleet.add(new TrustingDevice(
                                "127.0.0.1", mqttPort, "trusting-" + d + "-r" + round, WINDOW, acked, unlimited));
                    }
                    // mid-stream: every device keeps its window full until the kill
                    await("PUBACKs of round " + round)
                            .atMost(Duration.ofSeconds(120))
                            .pollInterval(Duration.ofMillis(20))
                            .until(() -> acked.size() - before >= target);
                    bridge.kill9();
                }
                await("devices see the kill")
                        .atMost(Duration.ofSeconds(60))
                        .until(() -> fleet.stream().allMatch(TrustingDevice::isDone));
                for (TrustingDevice device : fleet) {
                    assertThat(device.wrongPuback())
                            .as("a PUBACK for a PUBLISH not in flight")
                            .isEqualTo(-1);
                    sent += device.sent();
                    device.close();
                }
            }
            try (BridgeProcess last = new BridgeProcess(log, sets).start()) {
                Set<String> lost = new HashSet<>(acked);
                try {
                    await("every PUBACKed command at central")
                            .atMost(Duration.ofSeconds(180))
                            .until(() -> {
                                central.inbox().entries().stream()
                                        .map(Inbox.Entry::eventId)
                                        .forEach(lost::remove);
                                return lost.isEmpty();
                            });
                } catch (org.awaitility.core.ConditionTimeoutException e) {
                    // reported below, with the figure
                }
                System.out.printf(
                        "PubackKillIT: %d PUBLISHes sent, %d PUBACKed, %d of them lost over %d kill -9%n",
                        sent, acked.size(), lost.size(), KILLS);
                assertThat(lost)
                        .as(lost.size() + " of " + acked.size() + " PUBACKed commands not at central")
                        .isEmpty();
                assertThat(acked.size()).as("PUBACKed").isGreaterThan(KILLS * 1_000);
                assertThat(sent)
                        .as("some PUBLISHes were in flight (not PUBACKed) at each kill")
                        .isGreaterThan(acked.size());
            }
        }
    }
}
