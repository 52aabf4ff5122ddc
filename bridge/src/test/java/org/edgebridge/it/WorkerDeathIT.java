package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.edgebridge.central.CentralSim;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.lifecycle.ExitCodes;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue #14: a worker thread that dies of an {@link Error} must not leave a bridge that looks alive and does
 * nothing. The real jar in a child JVM; the Error is thrown by the test hook {@code edgebridge.test.hook}
 * at the point where an OutOfMemoryError would strike (after a claim, before an intake commit).
 */
class WorkerDeathIT {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"FORWARDER", "INTAKE_WRITER"})
    void a_worker_that_dies_of_an_error_makes_the_process_exit_non_zero_for_its_supervisor(String worker)
            throws Exception {
        try (CentralSim central = TestSite.central(Optional.empty(), 16L * 1024 * 1024);
                BridgeProcess bridge = new BridgeProcess(
                                BridgeProcess.logFile("worker-death-" + worker),
                                List.of("-Dedgebridge.test.hook="
                                        + (worker.equals("FORWARDER") ? "AFTER_CLAIM" : "BEFORE_INTAKE_COMMIT")
                                        + ":error"),
                                "data.dir=" + dir,
                                "mqtt.host=127.0.0.1",
                                "mqtt.port=any",
                                "auth.anonymous=true",
                                "ingest.url=http://127.0.0.1:" + central.port() + "/ingest")
                        .start();
                DeviceSimulator device = DeviceSimulator.of("dev-wd", bridge.mqttPort())) {
            device.connectAndSubscribe();
            // no PUBACK comes: the intake writer dies before the commit (the connection is closed; the device would
            // resend)
            device.publishWithoutWaiting(
                    "devices/dev-wd/commands/t",
                    DeviceSimulator.command("WD-1", "").getBytes(java.nio.charset.StandardCharsets.UTF_8));
            await().atMost(Duration.ofSeconds(60)).until(() -> !bridge.isAlive());
            assertThat(bridge.exitValue()).isEqualTo(ExitCodes.WORKER_DIED);
            assertThat(bridge.log())
                    .contains("worker " + (worker.equals("FORWARDER") ? "forwarder" : "intake-writer")
                            + ": java.lang.InternalError")
                    .contains("died");
        }
    }

    @org.junit.jupiter.api.Test
    void an_unexpected_exception_between_claim_and_settle_puts_the_claim_back_at_once() throws Exception {
        try (CentralSim central = TestSite.central(Optional.empty(), 16L * 1024 * 1024);
                BridgeProcess bridge = new BridgeProcess(
                                BridgeProcess.logFile("claim-release"),
                                List.of("-Dedgebridge.test.hook=AFTER_CLAIM:runtime"),
                                "data.dir=" + dir,
                                "mqtt.host=127.0.0.1",
                                "mqtt.port=any",
                                "auth.anonymous=true",
                                "ingest.url=http://127.0.0.1:" + central.port() + "/ingest")
                        .start();
                DeviceSimulator device = DeviceSimulator.of("dev-rel", bridge.mqttPort())) {
            device.connectAndSubscribe();
            device.publish("t", DeviceSimulator.command("REL-1", ""));
            // the first claim throws after it marked the row in flight; without a release the row waited for a restart
            assertThat(device.awaitFinal("REL-1").path("status").asText()).isEqualTo("accepted");
            assertThat(bridge.isAlive()).isTrue();
            assertThat(bridge.log())
                    .contains("test hook: throwing a RuntimeException at AFTER_CLAIM")
                    .contains("events still in flight are pending again");
        }
    }
}
