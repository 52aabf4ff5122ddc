package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.edgebridge.central.CentralSim;
import org.edgebridge.central.Inbox;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 26 part 1, commands that must not run late (docs/protocol.md §1.4): an outage of central longer than two
 * commands' expiry (one by the type's rule, one by its own expiresAt), with a kill -9 of the bridge process in it. The
 * two become final at the bridge, rejected / expired, while central is still down; the device's next command waits
 * behind them and, once central is back, goes after central was told of them: central applies it in order, sees no
 * unexplained gap in the device's sequence, and never the expired ones. Shipped defaults but for the expiry rule.
 */
class ExpiryIT {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String ADMIN_TOKEN = "expiry-it-token";

    @TempDir
    Path dir;

    @Test
    void an_outage_longer_than_the_expiry_across_a_kill_9_makes_them_final_here_and_central_sees_no_gap()
            throws Exception {
        int centralPort = Ports.freeOutsideEphemeralRange();
        String[] sets = {
            "data.dir=" + dir.resolve("data"),
            "mqtt.host=127.0.0.1",
            "auth.anonymous=true",
            "admin.token=" + ADMIN_TOKEN,
            "ingest.url=http://127.0.0.1:" + centralPort + "/ingest",
            "intake.expiryByType=gate/#=15s"
        };
        Path log = BridgeProcess.logFile("expiry");
        Map<String, String> payloads = new HashMap<>();
        Instant lastExpiry;
        try (BridgeProcess first = new BridgeProcess(log, sets).start();
                DeviceSimulator device = DeviceSimulator.of("dev-exp", first.mqttPort())) {
            device.connectAndSubscribe();
            Instant ownExpiry = Instant.now().plusSeconds(16);
            payloads.put("GATE-1", DeviceSimulator.command("GATE-1", "\"open\":true"));
            payloads.put("BATCH-2", DeviceSimulator.command("BATCH-2", "\"expiresAt\":\"" + ownExpiry + "\""));
            payloads.put(
                    "LATER-3",
                    DeviceSimulator.command(
                            "LATER-3", "\"expiresAt\":\"" + Instant.now().plusSeconds(3600) + "\""));
            device.publish("gate/open", payloads.get("GATE-1"));
            device.publish("batch/release", payloads.get("BATCH-2"));
            device.publish("batch/release", payloads.get("LATER-3"));
            for (String id : payloads.keySet()) {
                device.awaitReceipt(id, "stored");
            }
            lastExpiry = Instant.now().plusSeconds(15).isAfter(ownExpiry)
                    ? Instant.now().plusSeconds(15)
                    : ownExpiry;
            // killed while no request is out: a command in flight at a crash may have reached central, and is then
            // sent again after its expiry for central to decide (ExpiriesTest, InboxTest)
            await().atMost(Duration.ofSeconds(14)).until(() -> {
                JsonNode s = json(get(first.adminPort(), "/api/status"));
                return s.path("forwarder").path("circuitBreaker").asText().equals("open")
                        && s.path("outbox").path("counts").path("inflight").asInt() == 0;
            });
            first.kill9();
        }
        // the outage outlasts both expiries while the bridge is down
        await().atMost(Duration.ofSeconds(30)).until(() -> Instant.now().isAfter(lastExpiry));

        try (BridgeProcess second = new BridgeProcess(log, sets).start();
                DeviceSimulator device = DeviceSimulator.of("dev-exp", second.mqttPort())) {
            device.connectAndSubscribe();
            // a careful device sends again what has no final receipt; central is still down
            device.resendUntilFinal(
                    Map.of("GATE-1", payloads.get("GATE-1")),
                    "gate/open",
                    Duration.ofSeconds(2),
                    Duration.ofSeconds(30));
            device.resendUntilFinal(
                    Map.of("BATCH-2", payloads.get("BATCH-2")),
                    "batch/release",
                    Duration.ofSeconds(2),
                    Duration.ofSeconds(30));
            for (String id : new String[] {"GATE-1", "BATCH-2"}) {
                JsonNode receipt = device.awaitFinal(id);
                assertThat(receipt.path("status").asText()).as(id).isEqualTo("rejected");
                assertThat(receipt.path("code").asText()).as(id).isEqualTo("expired");
            }
            JsonNode status = json(get(second.adminPort(), "/api/status"));
            assertThat(status.path("forwarder").path("expiry").path("expired").asLong())
                    .isEqualTo(2);
            assertThat(status.path("forwarder")
                            .path("expiry")
                            .path("reportedToCentral")
                            .asLong())
                    .isZero();
            assertThat(get(second.adminPort(), "/metrics")).contains("edgebridge_forwarder_expired_total 2.0");
            assertThat(device.receiptsFor("LATER-3"))
                    .noneMatch(r -> r.path("final").asBoolean());

            try (CentralSim central = new CentralSim(Optional.empty(), 16L * 1024 * 1024, Clock.systemUTC())
                    .start("127.0.0.1", centralPort)) {
                // what an admin does after an outage: end the backoff now rather than at its next attempt
                assertThat(post(second.adminPort(), "/api/forwarder/retry-now").statusCode())
                        .isEqualTo(200);
                device.resendUntilFinal(
                        Map.of("LATER-3", payloads.get("LATER-3")),
                        "batch/release",
                        Duration.ofSeconds(5),
                        Duration.ofSeconds(90));
                assertThat(device.awaitFinal("LATER-3").path("status").asText()).isEqualTo("accepted");
                assertThat(central.inbox().entries())
                        .extracting(Inbox.Entry::eventId)
                        .containsExactly("LATER-3");
                assertThat(central.inbox().entries())
                        .extracting(Inbox.Entry::sequence)
                        .containsExactly(3L);
                assertThat(central.inbox().stats())
                        .containsEntry("sequenceGaps", 0L)
                        .containsEntry("expiryReports", 2L)
                        .containsEntry("orderingViolations", 0L);
                await().atMost(DeviceSimulator.WAIT)
                        .until(() -> json(get(second.adminPort(), "/api/status"))
                                        .path("forwarder")
                                        .path("expiry")
                                        .path("reportedToCentral")
                                        .asLong()
                                == 2);
            }
            assertThat(second.stop()).isIn(0, 143);
        }
    }

    private static String get(int port, String path) throws Exception {
        return HTTP.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }

    private static HttpResponse<String> post(int port, String path) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .header("Authorization", "Bearer " + ADMIN_TOKEN)
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(String body) throws Exception {
        return DeviceSimulator.JSON.readTree(body);
    }
}
