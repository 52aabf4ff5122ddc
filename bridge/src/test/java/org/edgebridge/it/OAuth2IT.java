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
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.edgebridge.central.CentralSim;
import org.edgebridge.central.Inbox;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ingest.oauth2.* against a real authorization server (Spring Authorization Server, {@link AuthorizationServer}) and a
 * central that checks each token with it: the token is asked for once and reused, renewed before it expires and once
 * on central's 401; a wrong secret or a token endpoint that is down keeps every command (nothing parked, central's
 * circuit breaker untouched), raises ingest_token_endpoint_failing, and each command is applied once when it is fixed.
 */
class OAuth2IT {
    private static final String SECRET = "the-bridge-client-secret";
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    private final List<String> tokensSeen = new CopyOnWriteArrayList<>();

    private Path secretFile(String secret) throws Exception {
        Path file = dir.resolve("client.secret");
        Files.writeString(file, secret + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }

    private CentralSim central(int authPort) {
        return new CentralSim(AuthorizationServer.centralCheck(authPort, tokensSeen), 16L << 20, Clock.systemUTC())
                .start("127.0.0.1", 0);
    }

    private static String[] oauth2(int authPort, Path secret, String... more) {
        List<String> sets = new java.util.ArrayList<>(List.of(
                "ingest.oauth2.tokenUrl=http://127.0.0.1:" + authPort + "/oauth2/token",
                "ingest.oauth2.clientId=" + AuthorizationServer.CLIENT_ID,
                "ingest.oauth2.clientSecretFile=" + secret,
                "ingest.oauth2.scope=" + AuthorizationServer.SCOPE));
        sets.addAll(List.of(more));
        return sets.toArray(String[]::new);
    }

    @Test
    void a_real_bridge_gets_one_token_uses_it_for_every_request_and_never_shows_the_secret_or_the_token()
            throws Exception {
        int authPort = Ports.freeOutsideEphemeralRange();
        Path secret = secretFile(SECRET);
        try (AuthorizationServer auth = AuthorizationServer.start(authPort, SECRET, Duration.ofHours(1));
                CentralSim central = central(authPort);
                BridgeProcess bridge = new BridgeProcess(
                                BridgeProcess.logFile("oauth2"),
                                prefixed(
                                        oauth2(authPort, secret),
                                        "data.dir=" + dir.resolve("data"),
                                        "mqtt.host=127.0.0.1",
                                        "mqtt.port=any",
                                        "auth.anonymous=true",
                                        "ingest.url=http://127.0.0.1:" + central.port() + "/ingest"))
                        .start();
                DeviceSimulator device = DeviceSimulator.of("dev-oauth2", bridge.mqttPort())) {
            device.connectAndSubscribe();
            List<String> ids = List.of("OAUTH-1", "OAUTH-2", "OAUTH-3");
            for (String id : ids) {
                publish(device, id);
                assertThat(device.awaitFinal(id).path("status").asText()).isEqualTo("accepted");
            }
            assertAppliedOnce(central, ids);
            String admin = "http://127.0.0.1:" + bridge.adminPort();
            String status = get(admin + "/api/status");
            JsonNode s = DeviceSimulator.JSON.readTree(status);
            assertThat(s.path("central").path("oauth2").asText())
                    .isEqualTo("oauth2 http://127.0.0.1:" + authPort + "/oauth2/token as "
                            + AuthorizationServer.CLIENT_ID);
            JsonNode oauth = s.path("forwarder").path("oauth2");
            assertThat(oauth.path("requests").asLong())
                    .as("one token for the three requests")
                    .isEqualTo(1);
            assertThat(oauth.path("failuresInARow").asInt()).isZero();
            assertThat(oauth.path("tokenExpiresAt").asText()).isNotEmpty();
            assertThat(tokensSeen).isNotEmpty().allSatisfy(t -> assertThat(t).isEqualTo(tokensSeen.get(0)));
            assertThat(get(admin + "/metrics")).contains("edgebridge_ingest_token_requests_total 1.0");
            assertThat(status).doesNotContain(SECRET, tokensSeen.get(0));
            assertThat(bridge.log()).doesNotContain(SECRET, tokensSeen.get(0));
        }
    }

    @Test
    void an_expiring_token_is_renewed_before_it_is_sent_and_the_form_authentication_works_too() throws Exception {
        int authPort = Ports.freeOutsideEphemeralRange();
        try (AuthorizationServer auth = AuthorizationServer.start(authPort, SECRET, Duration.ofSeconds(2));
                CentralSim central = central(authPort);
                TestSite site = TestSite.withCentral(
                        dir.resolve("data"),
                        central,
                        oauth2(authPort, secretFile(SECRET), "ingest.oauth2.clientAuth=post"));
                DeviceSimulator device = site.device("dev-expiring-token")) {
            device.connectAndSubscribe();
            publish(device, "EXPIRY-1");
            assertThat(device.awaitFinal("EXPIRY-1").path("status").asText()).isEqualTo("accepted");
            Instant expiresAt =
                    Instant.parse(oauth2Status(site).path("tokenExpiresAt").asText());
            await().atMost(Duration.ofSeconds(10)).until(() -> Instant.now().isAfter(expiresAt));
            publish(device, "EXPIRY-2");
            assertThat(device.awaitFinal("EXPIRY-2").path("status").asText()).isEqualTo("accepted");
            assertThat(oauth2Status(site).path("requests").asLong())
                    .as("a new token for the second")
                    .isEqualTo(2);
            assertThat(central.requestLog())
                    .as("central never saw an expired token")
                    .noneMatch(r -> r.status() == 401);
            assertAppliedOnce(central, List.of("EXPIRY-1", "EXPIRY-2"));
        }
    }

    @Test
    void a_token_central_no_longer_takes_is_renewed_once_on_its_401_and_the_command_goes_through() throws Exception {
        int authPort = Ports.freeOutsideEphemeralRange();
        Path secret = secretFile(SECRET);
        try (CentralSim central = central(authPort)) {
            AuthorizationServer auth = AuthorizationServer.start(authPort, SECRET, Duration.ofHours(1));
            try (TestSite site = TestSite.withCentral(dir.resolve("data"), central, oauth2(authPort, secret));
                    DeviceSimulator device = site.device("dev-revoked")) {
                device.connectAndSubscribe();
                publish(device, "REVOKED-1");
                assertThat(device.awaitFinal("REVOKED-1").path("status").asText())
                        .isEqualTo("accepted");
                auth.close(); // a new run of the server knows none of the old tokens: central's check refuses the
                // cached one
                auth = AuthorizationServer.start(authPort, SECRET, Duration.ofHours(1));
                publish(device, "REVOKED-2");
                assertThat(device.awaitFinal("REVOKED-2").path("status").asText())
                        .isEqualTo("accepted");
                assertThat(oauth2Status(site).path("refreshedAfter401").asLong())
                        .isEqualTo(1);
                assertThat(oauth2Status(site).path("requests").asLong()).isEqualTo(2);
                assertThat(central.requestLog())
                        .filteredOn(r -> r.status() == 401)
                        .hasSize(1);
                assertThat(site.getJson("/api/status")
                                .path("forwarder")
                                .path("state")
                                .asText())
                        .isNotEqualTo("paused_by_central");
                assertAppliedOnce(central, List.of("REVOKED-1", "REVOKED-2"));
            } finally {
                auth.close();
            }
        }
    }

    @Test
    void a_wrong_secret_keeps_every_command_raises_the_alarm_and_the_corrected_file_sends_each_once() throws Exception {
        int authPort = Ports.freeOutsideEphemeralRange();
        Path secret = secretFile("not-the-secret");
        try (AuthorizationServer auth = AuthorizationServer.start(authPort, SECRET, Duration.ofHours(1));
                CentralSim central = central(authPort);
                TestSite site = TestSite.withCentral(dir.resolve("data"), central, oauth2(authPort, secret));
                DeviceSimulator device = site.device("dev-wrong-secret")) {
            List<String> ids = sendWhileNoToken(site, device, "WRONG", "invalid_client");
            assertThat(ClientCertificateIT.alarm(site, "ingest_token_endpoint_failing"))
                    .contains("check ingest.oauth2.clientId and the secret in ingest.oauth2.clientSecretFile")
                    .doesNotContain("not-the-secret");
            assertThat(central.requestLog())
                    .as("nothing sent to central without a token")
                    .isEmpty();

            secretFile(SECRET);
            await().atMost(DeviceSimulator.WAIT).until(() -> central.inbox().size() == ids.size());
            ids.forEach(id ->
                    assertThat(device.awaitFinal(id).path("status").asText()).isEqualTo("accepted"));
            assertAppliedOnce(central, ids);
            assertThat(ClientCertificateIT.alarmCodes(site)).doesNotContain("ingest_token_endpoint_failing");
        }
    }

    @Test
    void a_token_endpoint_that_is_down_keeps_every_command_without_blaming_central_and_each_is_sent_once_it_is_up()
            throws Exception {
        int authPort = Ports.freeOutsideEphemeralRange();
        try (CentralSim central = central(authPort);
                TestSite site =
                        TestSite.withCentral(dir.resolve("data"), central, oauth2(authPort, secretFile(SECRET)));
                DeviceSimulator device = site.device("dev-endpoint-down")) {
            List<String> ids = sendWhileNoToken(site, device, "DOWN", "refused");
            JsonNode f = site.getJson("/api/status").path("forwarder");
            assertThat(f.path("circuitBreaker").asText()).isEqualTo("closed");
            assertThat(f.path("consecutiveFailures").asInt())
                    .as("central's count")
                    .isZero();
            assertThat(ClientCertificateIT.alarmCodes(site)).doesNotContain("central_unreachable");
            assertThat(central.requestLog()).isEmpty();
            try (AuthorizationServer auth = AuthorizationServer.start(authPort, SECRET, Duration.ofHours(1))) {
                await().atMost(DeviceSimulator.WAIT).until(() -> central.inbox().size() == ids.size());
                ids.forEach(
                        id -> assertThat(device.awaitFinal(id).path("status").asText())
                                .isEqualTo("accepted"));
                assertAppliedOnce(central, ids);
                assertThat(ClientCertificateIT.alarmCodes(site)).doesNotContain("ingest_token_endpoint_failing");
            }
        }
    }

    /**
     * Three commands stored while no token can be had: the alarm (on /api/status and /metrics) names the failure, and
     * the commands stay open, none parked.
     */
    private static List<String> sendWhileNoToken(TestSite site, DeviceSimulator device, String prefix, String failure)
            throws Exception {
        device.connectAndSubscribe();
        List<String> ids = List.of(prefix + "-1", prefix + "-2", prefix + "-3");
        ids.forEach(id -> publish(device, id));
        ids.forEach(id -> device.awaitReceipt(id, "stored"));
        await().atMost(DeviceSimulator.WAIT)
                .until(() -> ClientCertificateIT.alarm(site, "ingest_token_endpoint_failing")
                        .contains(failure));
        assertThat(site.get("/metrics").body())
                .contains("edgebridge_alarm_active{code=\"ingest_token_endpoint_failing\"} 1");
        assertThat(site.getJson("/api/status")
                        .path("forwarder")
                        .path("lastError")
                        .asText())
                .contains("ingest.oauth2.tokenUrl");
        JsonNode outbox = site.getJson("/api/status").path("outbox");
        assertThat(outbox.path("open").asLong()).isEqualTo(ids.size());
        assertThat(outbox.path("counts").path("parked").asLong()).isZero();
        return ids;
    }

    private static JsonNode oauth2Status(TestSite site) throws Exception {
        return site.getJson("/api/status").path("forwarder").path("oauth2");
    }

    private static void assertAppliedOnce(CentralSim central, List<String> ids) {
        assertThat(central.inbox().entries()).extracting(Inbox.Entry::eventId).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(central.inbox().entries())
                .allSatisfy(e -> assertThat(e.deliveries()).isEqualTo(1));
    }

    private static void publish(DeviceSimulator device, String id) {
        device.publish("workorder/arrive", DeviceSimulator.command(id, "\"action\":\"ARRIVE\""));
    }

    private static String[] prefixed(String[] sets, String... first) {
        List<String> all = new java.util.ArrayList<>(List.of(first));
        all.addAll(List.of(sets));
        return all.toArray(String[]::new);
    }

    private static String get(String url) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString())
                .body();
    }
}
