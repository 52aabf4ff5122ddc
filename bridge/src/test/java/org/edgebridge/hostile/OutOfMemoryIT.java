package org.edgebridge.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.it.BridgeProcess;
import org.edgebridge.lifecycle.ExitCodes;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 23 point 4, in real bridge processes: an OutOfMemoryError ends the process with exit code 3 whatever the JVM
 * flags, and the reply that caused it cannot crash the restarted bridge again. To get a real OutOfMemoryError the
 * first life raises {@code ingest.maxReplyBytes} to 1 GiB, above its heap, and central answers 700 MB; the second
 * life runs with the shipped cap (4 MiB) against the same central and the same outbox row.
 */
class OutOfMemoryIT {
    private static final long SEVEN_HUNDRED_MB = 700L * 1000 * 1000;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "JVM flags: {0}")
    @ValueSource(strings = {"none", "the service unit's"})
    void an_out_of_memory_error_ends_the_bridge_with_exit_code_3_and_the_same_reply_does_not_crash_it_after_the_restart(
            String flags) throws Exception {
        List<String> jvm = flags.equals("none") ? List.of() : serviceUnitFlags();
        try (HostileCentral central = new HostileCentral().otherwise(HostileCentral.huge(SEVEN_HUNDRED_MB, false))) {
            String[] sets = {
                "data.dir=" + dir, "mqtt.host=127.0.0.1", "auth.anonymous=true", "ingest.url=" + central.url()
            };
            try (BridgeProcess first = new BridgeProcess(
                                    BridgeProcess.logFile("oom-" + jvm.size()),
                                    jvm,
                                    with(sets, "ingest.maxReplyBytes=1GiB"))
                            .start();
                    DeviceSimulator device = DeviceSimulator.of("dev-oom", first.mqttPort())) {
                device.connectAndSubscribe();
                device.publish("workorder/arrive", DeviceSimulator.command("OOM-1", ""));
                await().atMost(Duration.ofSeconds(120)).until(() -> !first.isAlive());
                assertThat(first.exitValue()).isEqualTo(ExitCodes.WORKER_DIED);
                assertThat(first.log())
                        .contains("OutOfMemoryError")
                        .contains(
                                jvm.isEmpty()
                                        ? "halts now with exit code 3"
                                        : "Terminating due to java.lang.OutOfMemoryError");
            }
            int sentBefore = central.requests().size();
            try (BridgeProcess second =
                    new BridgeProcess(BridgeProcess.logFile("oom-restart-" + jvm.size()), jvm, sets).start()) {
                // the same event is sent again and again; each huge reply is cut off at the cap; the bridge stays up
                await().atMost(Duration.ofSeconds(120))
                        .until(() -> central.requests().size() >= sentBefore + 3);
                assertThat(second.isAlive()).isTrue();
                assertThat(HostileSite.status(second.adminPort())
                                .path("forwarder")
                                .path("lastError")
                                .asText())
                        .contains("longer than ingest.maxReplyBytes (4194304 bytes)");
                central.otherwise(HostileCentral.applying());
                await().atMost(Duration.ofSeconds(120))
                        .until(() -> HostileSite.status(second.adminPort())
                                        .path("outbox")
                                        .path("counts")
                                        .path("accepted")
                                        .asInt()
                                == 1);
                assertThat(second.stop()).isIn(0, 143);
            }
        }
    }

    private static String[] with(String[] sets, String more) {
        String[] out = Arrays.copyOf(sets, sets.length + 1);
        out[sets.length] = more;
        return out;
    }

    /** JAVA_OPTS of broker-config/edge-bridge.service, without the logback file of an installed site. */
    private static List<String> serviceUnitFlags() throws IOException {
        String unit = Files.readString(Path.of("..", "broker-config", "edge-bridge.service"));
        int start = unit.indexOf("JAVA_OPTS=") + "JAVA_OPTS=".length();
        String opts = unit.substring(start, unit.indexOf('"', start));
        List<String> flags = new ArrayList<>();
        for (String flag : opts.trim().split("\\s+")) {
            if (!flag.startsWith("-Dlogback.configurationFile")) {
                flags.add(flag);
            }
        }
        assertThat(flags).contains("-XX:+ExitOnOutOfMemoryError", "-Xmx512m");
        return flags;
    }
}
