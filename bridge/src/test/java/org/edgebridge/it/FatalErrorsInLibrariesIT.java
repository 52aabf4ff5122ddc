package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.edgebridge.bench.RawMqttClient;
import org.edgebridge.central.CentralSim;
import org.edgebridge.lifecycle.ExitCodes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 40, point 8: an Error that a library catches and only logs left a zombie. Moquette 0.17's protocol handler
 * (after the bridge's gate) catches every Throwable of a packet, logs it and closes the connection; the process went
 * on. Now a library's log line that carries an Error halts the bridge with exit code 3 ({@code
 * worker.ErrorsInLibraryLogs}), so its supervisor starts it again. The real jar in a child JVM; the Error is thrown
 * inside Moquette's handler by the test hook {@code IN_BROKER_AUTHENTICATOR}, for a CONNECT with a username.
 */
class FatalErrorsInLibrariesIT {
    @TempDir
    Path dir;

    @Test
    void an_error_caught_and_logged_by_moquettes_protocol_handler_halts_the_bridge_with_exit_code_3() throws Exception {
        try (CentralSim central = TestSite.central(Optional.empty(), 1 << 24);
                BridgeProcess bridge = new BridgeProcess(
                                BridgeProcess.logFile("library-error"),
                                List.of("-Dedgebridge.test.hook=IN_BROKER_AUTHENTICATOR:error"),
                                "data.dir=" + dir.resolve("data"),
                                "mqtt.host=127.0.0.1",
                                "auth.anonymous=true",
                                "ingest.url=http://127.0.0.1:" + central.port() + "/ingest")
                        .start()) {
            try (RawMqttClient device = new RawMqttClient("127.0.0.1", bridge.mqttPort())) {
                device.connect(RawMqttClient.Connect.of("field-node-1").withCredentials("user", "password"));
            } catch (java.io.IOException closed) {
                // the bridge halted under it
            }
            assertThat(bridge.awaitExit(Duration.ofSeconds(30)))
                    .as("the bridge halted")
                    .isTrue();
            assertThat(bridge.exitValue()).isEqualTo(ExitCodes.WORKER_DIED);
            assertThat(bridge.log())
                    .contains("test hook: throwing an Error at IN_BROKER_AUTHENTICATOR")
                    .contains("fatal: thread");
        }
    }
}
