package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.edgebridge.central.CentralSim;
import org.edgebridge.central.Faults;
import org.edgebridge.central.Inbox;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The bridge as a child JVM, killed with {@code kill -9} inside each crash window of docs/design.md. The
 * process is held in the window by its test hook ({@code -Dedgebridge.test.hook}) or, for the window
 * on central's side, by central holding its reply after it applied the batch. After a restart, every command
 * must be applied at central exactly once and get final receipts that all say the same thing. Inside the intake's
 * windows no PUBACK has come yet: it waits for the commit and the intake's answer ({@code mqtt.pubackAfterCommit}).
 */
class CrashWindowIT {
    private static final int COMMANDS = 3;

    /** The windows, with how each is entered. */
    enum Window {
        BEFORE_INTAKE_COMMIT,
        AFTER_INTAKE_COMMIT,
        AFTER_CLAIM,
        /**
         * {@code AFTER_CLAIM} of the second request, one event per request: the settle of the first claims the
         * second event ahead when it is stored by then (the device publishes all three at once), and the bridge dies
         * before sending it. Either way the second request's claim is in flight, in the outbox, at the kill.
         */
        AFTER_CLAIM_AHEAD,
        CENTRAL_APPLIED_REPLY_NOT_READ,
        AFTER_FINAL_COMMIT;

        /** The intake has not answered the commands yet: their PUBACKs wait. */
        boolean beforeAnswer() {
            return this == BEFORE_INTAKE_COMMIT || this == AFTER_INTAKE_COMMIT;
        }

        boolean heldByCentral() {
            return this == CENTRAL_APPLIED_REPLY_NOT_READ;
        }

        /** The bridge's crash window of this test's window. */
        String hook() {
            return this == AFTER_CLAIM_AHEAD ? AFTER_CLAIM.name() : name();
        }
    }

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Window.class)
    void kill_9_inside_the_window_loses_nothing_and_applies_nothing_twice(Window window) throws Exception {
        // one device stays connected across the kill -9 and reconnects to the restarted bridge on the same port
        int mqttPort = Ports.freeOutsideEphemeralRange();
        int centralPort = Ports.free();
        Path marker = dir.resolve("in-window");
        String[] sets = {
            "data.dir=" + dir.resolve("data"),
            "mqtt.host=127.0.0.1",
            "mqtt.port=" + mqttPort,
            "auth.anonymous=true",
            "ingest.url=http://127.0.0.1:" + centralPort + "/ingest",
            "forwarder.backoffInitial=100ms",
            "forwarder.backoffMax=1s"
        };
        List<String> hook = window.heldByCentral()
                ? List.of()
                : new java.util.ArrayList<>(
                        List.of("-Dedgebridge.test.hook=" + window.hook(), "-Dedgebridge.test.hookMarker=" + marker));
        if (window == Window.AFTER_CLAIM_AHEAD) {
            hook.add("-Dedgebridge.test.hookSkip=1");
            sets = java.util.stream.Stream.concat(
                            java.util.Arrays.stream(sets), java.util.stream.Stream.of("forwarder.maxEvents=1"))
                    .toArray(String[]::new);
        }
        Map<String, String> payloads = new LinkedHashMap<>();
        for (int i = 1; i <= COMMANDS; i++) {
            payloads.put(window.name() + "-" + i, DeviceSimulator.command(window.name() + "-" + i, "\"i\":" + i));
        }
        Path log = BridgeProcess.logFile("crash-" + window.name());
        try (CentralSim central =
                        new CentralSim(Optional.empty(), 1 << 24, Clock.systemUTC()).start("127.0.0.1", centralPort);
                DeviceSimulator device = DeviceSimulator.of("dev-crash", mqttPort)) {
            if (window.heldByCentral()) {
                central.faults(new Faults("hold_reply", 0, null, false, 0, 60_000, 1));
            }
            try (BridgeProcess first = new BridgeProcess(log, hook, sets).start()) {
                device.connectAndSubscribe();
                List<CompletableFuture<?>> pubacks = payloads.values().stream()
                        .<CompletableFuture<?>>map(p -> device.publishAsync(
                                "devices/dev-crash/commands/op", p.getBytes(StandardCharsets.UTF_8)))
                        .toList();
                await("inside " + window)
                        .atMost(Duration.ofSeconds(30))
                        .until(() -> window.heldByCentral() ? central.holdingReplies() > 0 : Files.exists(marker));
                if (window.beforeAnswer()) {
                    // a PUBACK means the command is committed and answered (docs/protocol.md §2): none came yet
                    assertThat(pubacks).as("PUBACKs inside " + window).noneMatch(CompletableFuture::isDone);
                }
                first.kill9();
            }
            central.faults(Faults.NONE);
            try (BridgeProcess second = new BridgeProcess(log, sets).start()) {
                device.reconnectAndSubscribe();
                device.resendUntilFinal(payloads, "op", Duration.ofSeconds(3), Duration.ofSeconds(60));

                assertThat(central.inbox().entries())
                        .extracting(Inbox.Entry::eventId)
                        .as("applied exactly once each, in sequence order")
                        .containsExactlyElementsOf(payloads.keySet());
                assertThat(central.inbox().entries())
                        .extracting(Inbox.Entry::sequence)
                        .containsExactly(1L, 2L, 3L);
                assertThat(central.inbox().stats().get("payloadMismatches")).isZero();
                for (String id : payloads.keySet()) {
                    List<String> finals = device.receiptsFor(id).stream()
                            .filter(r -> r.path("final").asBoolean())
                            .map(r -> r.path("status").asText())
                            .distinct()
                            .toList();
                    assertThat(finals).as("final statuses of " + id).hasSize(1);
                    assertThat(finals.get(0)).isIn("accepted", "duplicate");
                    JsonNode anyFinal = device.awaitFinal(id);
                    assertThat(anyFinal.path("sequence").asLong())
                            .isEqualTo(Long.parseLong(id.substring(id.lastIndexOf('-') + 1)));
                }
                if (window == Window.CENTRAL_APPLIED_REPLY_NOT_READ) {
                    assertThat(device.awaitFinal(window.name() + "-1")
                                    .path("status")
                                    .asText())
                            .as("central had applied it before the crash")
                            .isEqualTo("duplicate");
                }
                assertThat(second.log())
                        .contains(window.heldByCentral() ? "edge bridge" : "test hook: holding at " + window.hook());
            }
        }
    }
}
