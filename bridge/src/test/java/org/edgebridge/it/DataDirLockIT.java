package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.edgebridge.central.CentralSim;
import org.edgebridge.central.Faults;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One data dir, one bridge: a second process on the same data.dir stops before it touches anything. */
class DataDirLockIT {
    @TempDir
    Path dir;

    @Test
    void a_second_bridge_on_the_same_data_dir_exits_naming_the_dir_and_the_first_process_and_leaves_its_claims_alone()
            throws Exception {
        Path data = dir.resolve("data");
        int mqttPort = Ports.free();
        try (CentralSim central = new CentralSim(Optional.empty(), 1 << 24, Clock.systemUTC()).start("127.0.0.1", 0);
                DeviceSimulator device = DeviceSimulator.of("dev-lock", mqttPort)) {
            central.faults(new Faults("hold_reply", 0, null, false, 0, 60_000, 1));
            String ingest = "ingest.url=http://127.0.0.1:" + central.port() + "/ingest";
            try (BridgeProcess first = new BridgeProcess(
                            BridgeProcess.logFile("lock-first"),
                            "data.dir=" + data,
                            "mqtt.host=127.0.0.1",
                            "mqtt.port=" + mqttPort,
                            "auth.anonymous=true",
                            ingest)
                    .start()) {
                device.connectAndSubscribe();
                device.publish("t", DeviceSimulator.command("LOCK-1", ""));
                await().atMost(DeviceSimulator.WAIT).until(() -> central.holdingReplies() > 0);
                String inflight = outbox(first, "inflight");
                assertThat(inflight).contains("LOCK-1");

                BridgeProcess second = new BridgeProcess(
                        BridgeProcess.logFile("lock-second"),
                        "data.dir=" + data,
                        "mqtt.host=127.0.0.1",
                        "mqtt.port=any",
                        "auth.anonymous=true",
                        ingest);
                assertThatThrownBy(second::start)
                        .hasMessageContaining("exited with 1")
                        .hasMessageContaining("data.dir=" + data.toAbsolutePath() + " is in use by another edge bridge")
                        .hasMessageContaining("pid " + first.pid());
                assertThat(second.log()).doesNotContain("pending again");
                assertThat(outbox(first, "inflight"))
                        .as("the first bridge's claim is untouched")
                        .contains("LOCK-1");

                central.releaseHeldReplies();
                assertThat(device.awaitFinal("LOCK-1").path("status").asText()).isEqualTo("accepted");
                assertThat(central.inbox().entries()).hasSize(1);
                assertThat(first.isAlive()).isTrue();
            }
        }
    }

    private static String outbox(BridgeProcess bridge, String state) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(
                                        "http://127.0.0.1:" + bridge.adminPort() + "/api/outbox?state=" + state))
                                .timeout(Duration.ofSeconds(5))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }
}
