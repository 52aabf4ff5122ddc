package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.edgebridge.central.CentralSim;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No PUBACK before the commit, with the shipped defaults ({@code mqtt.pubackAfterCommit=true}): the intake writer is
 * held just before its commit ({@code BEFORE_INTAKE_COMMIT}), a device publishes thousands of commands without waiting,
 * and gets no PUBACK; past {@code mqtt.maxCommandsAwaitingCommit} (32) of its commands awaiting their commit its
 * connection is not read (the bound shows in /metrics). The kill -9 side: {@link PubackKillIT}. The same bound in
 * bytes ({@code mqtt.maxBytesAwaitingCommit}, 1 MiB): a device's large commands stop its connection being read long
 * before 32 of them wait.
 */
class PubackAfterCommitIT {
    /** What the eager device sends at once (about 70 bytes each): more than one read of a connection brings in. */
    private static final int COMMANDS = 5_000;

    @TempDir
    Path dir;

    @Test
    void no_puback_before_the_commit_and_a_connection_past_the_cap_is_not_read() throws Exception {
        Path marker = dir.resolve("in-window");
        int centralPort = Ports.free();
        Set<String> acked = ConcurrentHashMap.newKeySet();
        try (CentralSim central = central(centralPort);
                BridgeProcess bridge = heldBeforeCommit("puback-cap", marker, 60_000, centralPort);
                TrustingDevice device = new TrustingDevice(
                        "127.0.0.1", bridge.mqttPort(), "eager", COMMANDS, acked, new AtomicInteger(COMMANDS))) {
            await("the intake writer held before its commit")
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> Files.exists(marker));
            // the shipped cap, mqtt.maxCommandsAwaitingCommit=32; one read of the connection (at most 64 KiB, under a
            // thousand of these PUBLISHes) may bring more in before reading stops
            await("the cap bites")
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> bridge.metric("edgebridge_broker_awaiting_commit_pauses_total") >= 1);
            await("the device sent more than the bridge took")
                    .atMost(Duration.ofSeconds(60))
                    .until(device::sent, sent -> sent >= 1_500);
            assertThat(bridge.metric("edgebridge_broker_awaiting_commit_most"))
                    .as("the most awaiting on one connection")
                    .isBetween(32.0, 1_100.0);
            assertThat(device.acked()).as("PUBACKs while nothing is committed").isZero();
            assertThat(acked).isEmpty();
        }
    }

    @Test
    void a_connection_past_the_byte_bound_is_not_read() throws Exception {
        Path marker = dir.resolve("in-window");
        int centralPort = Ports.free();
        String pad = "p".repeat(200_000);
        // held 20 s (not 60): long enough to see the bound bite, then the commit goes on
        try (CentralSim central = central(centralPort);
                BridgeProcess bridge = heldBeforeCommit("puback-bytes", marker, 20_000, centralPort);
                DeviceSimulator device = DeviceSimulator.of("large", bridge.mqttPort())) {
            device.connectAndSubscribe();
            List<CompletableFuture<?>> pubacks = new ArrayList<>();
            for (int i = 0; i < 20; i++) { // 20 commands of 200 KB: 4 MB, under the count bound (32)
                String payload = DeviceSimulator.command("L-" + i, "\"pad\":\"" + pad + "\"");
                pubacks.add(device.publishAsync("devices/large/commands/t", payload.getBytes(StandardCharsets.UTF_8)));
            }
            await("the intake writer held before its commit")
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> Files.exists(marker));
            // the shipped byte bound, mqtt.maxBytesAwaitingCommit=1MiB: the sixth command of 200 KB reaches it
            await("the byte bound bites")
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> bridge.metric("edgebridge_broker_awaiting_commit_pauses_total") >= 1);
            double bytes = bridge.metric("edgebridge_broker_awaiting_commit_most_bytes");
            double commands = bridge.metric("edgebridge_broker_awaiting_commit_most");
            System.out.printf(
                    "FIGURES awaiting commit: at most %.0f commands, %.0f bytes of one connection%n", commands, bytes);
            assertThat(bytes)
                    .as("payload bytes awaiting on one connection: the bound, past it by the command that reached it"
                            + " and what one read had decoded")
                    .isBetween(1_048_576.0, 1_048_576.0 + 2 * 200_100);
            assertThat(commands).as("the count bound (32) did not bite").isLessThan(32.0);
            assertThat(pubacks).as("no PUBACK while nothing is committed").noneMatch(CompletableFuture::isDone);
            // the hold ends, the commit goes on: the connection is read again and every command gets its PUBACK
            CompletableFuture.allOf(pubacks.toArray(CompletableFuture[]::new)).get(90, TimeUnit.SECONDS);
            await("all 20 stored")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> bridge.metric("edgebridge_outbox_commands{state=\"pending\"}")
                                    + bridge.metric("edgebridge_outbox_commands{state=\"inflight\"}")
                                    + bridge.metric("edgebridge_outbox_commands{state=\"accepted\"}")
                            >= 20);
        }
    }

    private static CentralSim central(int port) {
        return new CentralSim(Optional.empty(), 1 << 24, Clock.systemUTC()).start("127.0.0.1", port);
    }

    /**
     * The bridge with the shipped defaults, its intake writer held just before its first commit for {@code holdMs}
     * (the marker file appears when it is).
     */
    private BridgeProcess heldBeforeCommit(String log, Path marker, long holdMs, int centralPort) throws Exception {
        return new BridgeProcess(
                        BridgeProcess.logFile(log),
                        List.of(
                                "-Dedgebridge.test.hook=BEFORE_INTAKE_COMMIT",
                                "-Dedgebridge.test.hookMarker=" + marker,
                                "-Dedgebridge.test.hookHoldMs=" + holdMs),
                        "data.dir=" + dir.resolve("data"),
                        "mqtt.host=127.0.0.1",
                        "auth.anonymous=true",
                        "ingest.url=http://127.0.0.1:" + centralPort + "/ingest")
                .start();
    }
}
