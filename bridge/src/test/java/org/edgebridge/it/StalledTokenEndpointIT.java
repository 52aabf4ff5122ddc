package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.edgebridge.central.CentralSim;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 40, point 2: a token endpoint that sends its headers and then one body byte every 5 s held the token's lock
 * for ever (the body was read with no deadline), and {@code /api/status}, {@code /metrics} and {@code /health/ready},
 * which read the token's status under that lock, did not answer within 3 s. Now the whole token exchange is bounded
 * by {@code ingest.timeout} and the status is a snapshot. A real bridge process, the shipped defaults.
 */
class StalledTokenEndpointIT {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Duration ANSWER_WITHIN = Duration.ofSeconds(3);

    @TempDir
    Path dir;

    @Test
    void a_token_endpoint_that_trickles_its_reply_leaves_status_metrics_and_health_answering_and_both_commands_applied()
            throws Exception {
        Path secret = dir.resolve("client.secret");
        Files.writeString(secret, "secret\n");
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        try (TricklingTokenEndpoint endpoint = new TricklingTokenEndpoint();
                CentralSim central = new CentralSim(
                                Optional.of(TricklingTokenEndpoint.TOKEN), 16L << 20, Clock.systemUTC())
                        .start("127.0.0.1", 0);
                BridgeProcess bridge = new BridgeProcess(
                                BridgeProcess.logFile("stalled-token"),
                                "data.dir=" + dir.resolve("data"),
                                "mqtt.host=127.0.0.1",
                                "auth.anonymous=true",
                                "ingest.url=http://127.0.0.1:" + central.port() + "/ingest",
                                "ingest.oauth2.tokenUrl=" + endpoint.url(),
                                "ingest.oauth2.clientId=edge-01",
                                "ingest.oauth2.clientSecretFile=" + secret)
                        .start();
                DeviceSimulator device = DeviceSimulator.of("dev-stalled-token", bridge.mqttPort())) {
            device.connectAndSubscribe();
            device.publish("workorder/arrive", DeviceSimulator.command("STALL-1", "\"action\":\"ARRIVE\""));
            device.awaitReceipt("STALL-1", "stored");
            await().atMost(Duration.ofSeconds(10)).until(() -> endpoint.requests.get() >= 1);
            String admin = "http://127.0.0.1:" + bridge.adminPort();
            // while the forwarder waits for the token's body (a byte every 5 s), every read answers within 3 s
            for (int round = 0; round < 3; round++) {
                for (String path : new String[] {"/api/status", "/metrics", "/health/ready", "/health/live"}) {
                    HttpResponse<String> r = HTTP.send(
                            HttpRequest.newBuilder(URI.create(admin + path))
                                    .timeout(ANSWER_WITHIN)
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
                    assertThat(r.statusCode()).as(path).isEqualTo(200);
                }
            }
            // the token request ends at ingest.timeout (the shipped 30 s) and says so
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> oauth2(admin).path("lastFailure").asText().contains("no whole answer within"));
            endpoint.answerNormally();
            device.publish("workorder/arrive", DeviceSimulator.command("STALL-2", "\"action\":\"ARRIVE\""));
            assertThat(device.awaitFinal("STALL-1").path("status").asText()).isEqualTo("accepted");
            assertThat(device.awaitFinal("STALL-2").path("status").asText()).isEqualTo("accepted");
            assertThat(central.inbox().size()).isEqualTo(2);
        }
    }

    private static JsonNode oauth2(String admin) throws Exception {
        String body = HTTP.send(
                        HttpRequest.newBuilder(URI.create(admin + "/api/status"))
                                .timeout(ANSWER_WITHIN)
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        return DeviceSimulator.JSON.readTree(body).path("forwarder").path("oauth2");
    }
}
