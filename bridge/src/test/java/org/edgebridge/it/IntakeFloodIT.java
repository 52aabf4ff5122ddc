package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.edgebridge.LoadsTheMachine;
import org.edgebridge.central.CentralSim;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #14, "memory is bounded in bytes, not in rows": a flood of large commands into the real jar in a child JVM
 * with a 256 MiB heap, while another writer holds the outbox file's SQLite write lock for a while (a slow or busy disk), so
 * that everything the devices send has to wait for the writer. The bridge stays up, answers retry_later /
 * intake_busy past intake.maxQueuedBytes or stops reading the devices' connections before that (their PUBACKs wait
 * for the commit: mqtt.pubackAfterCommit), and loses nothing: every command, resent by its careful device, reaches
 * central once. Prints the figures that docs/forwarding.md reports (heap peak from the child's GC log).
 */
@LoadsTheMachine
class IntakeFloodIT {
    private static final int DEVICES = 8;
    private static final int COMMANDS = 100;
    private static final int PAYLOAD_BYTES = 200_000;

    @TempDir
    Path dir;

    @Test
    void a_flood_of_large_commands_is_refused_past_the_byte_bound_and_nothing_is_lost() throws Exception {
        Path data = dir.resolve("data");
        Path gcLog = dir.resolve("gc.log");
        String pad = "f".repeat(PAYLOAD_BYTES);
        try (CentralSim central = TestSite.central(Optional.empty(), 64L * 1024 * 1024);
                BridgeProcess bridge = new BridgeProcess(
                                BridgeProcess.logFile("intake-flood"),
                                List.of("-Xlog:gc:file=" + gcLog),
                                "data.dir=" + data,
                                "mqtt.host=127.0.0.1",
                                "mqtt.port=any",
                                "auth.anonymous=true",
                                "ingest.url=http://127.0.0.1:" + central.port() + "/ingest")
                        .start()) {
            List<DeviceSimulator> devices = new ArrayList<>();
            List<Map<String, String>> payloads = new ArrayList<>();
            try {
                for (int d = 0; d < DEVICES; d++) {
                    DeviceSimulator device = DeviceSimulator.of("flood-" + d, bridge.mqttPort());
                    device.connectAndSubscribe();
                    devices.add(device);
                    Map<String, String> mine = new LinkedHashMap<>();
                    for (int i = 1; i <= COMMANDS; i++) {
                        String id = "F" + d + "-" + i;
                        mine.put(id, DeviceSimulator.command(id, "\"pad\":\"" + pad + "\""));
                    }
                    payloads.add(mine);
                }
                try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + data.resolve("outbox.db"));
                        Statement s = db.createStatement()) {
                    s.execute("BEGIN IMMEDIATE"); // the writer waits: whatever the devices send has to wait with it
                    for (int d = 0; d < DEVICES; d++) {
                        for (String p : payloads.get(d).values()) {
                            devices.get(d)
                                    .publishWithoutWaiting(
                                            "devices/flood-" + d + "/commands/t", p.getBytes(StandardCharsets.UTF_8));
                        }
                    }
                    // a bound bites: the intake refuses past intake.maxQueuedBytes, or (commands whose PUBACK waits for
                    // the commit, mqtt.pubackAfterCommit) connections stop being read before that many bytes wait
                    await().atMost(Duration.ofSeconds(25))
                            .until(() -> devices.stream()
                                                    .mapToLong(dev -> dev.receipts().stream()
                                                            .filter(r -> r.path("status")
                                                                    .asText()
                                                                    .equals("retry_later"))
                                                            .count())
                                                    .sum()
                                            > 0
                                    || readPauses(bridge) > 0);
                    s.execute("ROLLBACK");
                }
                for (int d = 0; d < DEVICES; d++) {
                    devices.get(d)
                            .resendUntilFinal(payloads.get(d), "t", Duration.ofSeconds(5), Duration.ofSeconds(240));
                }
                assertThat(bridge.isAlive()).isTrue();
                assertThat(central.inbox().size())
                        .as("every command reached central once")
                        .isEqualTo(DEVICES * COMMANDS);
                assertThat(central.inbox().stats().get("orderingViolations")).isZero();
                long refused = devices.stream()
                        .flatMap(dev -> dev.receipts().stream())
                        .filter(r -> r.path("status").asText().equals("retry_later"))
                        .count();
                long busy = devices.stream()
                        .flatMap(dev -> dev.receipts().stream())
                        .filter(r -> r.path("code").asText().equals("intake_busy"))
                        .count();
                double paused = readPauses(bridge);
                assertThat(busy + paused)
                        .as("refused past intake.maxQueuedBytes, or not read before it")
                        .isPositive();
                assertThat(bridge.log()).doesNotContain("OutOfMemoryError");
                long[] heap = heapPeaksMiB(gcLog);
                System.out.printf(
                        "FIGURES flood: %d commands of %d KB from %d devices (%d MB); heap of 256 MiB: at most %d MiB "
                                + "when a collection began, at most %d MiB live after one (child GC log); %d retry_later answers (%d intake_busy); %.0f times a connection was not read; %d of %d "
                                + "at central, none lost%n",
                        DEVICES * COMMANDS,
                        PAYLOAD_BYTES / 1000,
                        DEVICES,
                        (long) DEVICES * COMMANDS * PAYLOAD_BYTES / 1_000_000,
                        heap[0],
                        heap[1],
                        refused,
                        busy,
                        paused,
                        central.inbox().size(),
                        DEVICES * COMMANDS);
            } finally {
                devices.forEach(DeviceSimulator::close);
            }
        }
    }

    /** Times a device connection stopped being read: too many commands in front of the intake, or awaiting their commit. */
    private static double readPauses(BridgeProcess bridge) throws Exception {
        return Math.max(0, bridge.metric("edgebridge_broker_read_pauses_total"))
                + Math.max(0, bridge.metric("edgebridge_broker_awaiting_commit_pauses_total"));
    }

    /**
     * The largest heap occupancy before a collection and after one in a -Xlog:gc log ("123M->45M(256M)"). The first
     * comes near the heap's size by design (a collection starts when the heap fills); the second is what the bridge
     * really held.
     */
    private static long[] heapPeaksMiB(Path gcLog) throws Exception {
        Matcher m = Pattern.compile("(\\d+)M->(\\d+)M\\((\\d+)M\\)").matcher(Files.readString(gcLog));
        long[] peaks = new long[2];
        while (m.find()) {
            peaks[0] = Math.max(peaks[0], Long.parseLong(m.group(1)));
            peaks[1] = Math.max(peaks[1], Long.parseLong(m.group(2)));
        }
        return peaks;
    }
}
