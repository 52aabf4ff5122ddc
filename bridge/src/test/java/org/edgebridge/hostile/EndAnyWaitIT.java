package org.edgebridge.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23, point 9: central asks for an absurd Retry-After (more seconds than any clock holds). It is clamped to
 * forwarder.maxRetryAfter (now 5 min by default, 1 h before), and after central recovered nothing moved until then,
 * with nothing an admin could do. Now /api/status says when the next attempt is due, and POST
 * /api/forwarder/retry-now (behind the admin token) ends the wait: the commands go at once. SHIPPED DEFAULTS.
 */
class EndAnyWaitIT {
    private static final int COMMANDS = 30;

    @TempDir
    Path dir;

    @Test
    void an_admin_ends_an_absurd_retry_after_and_the_status_says_when_the_next_attempt_was_due() throws Exception {
        try (HostileSite site = new HostileSite(dir)) {
            site.central.otherwise(HostileCentral.status(503, "99999999999999999999999"));
            DeviceSimulator device = site.device("dev-w");
            for (int i = 1; i <= COMMANDS; i++) {
                device.publish("t", DeviceSimulator.command("W-" + i, ""));
            }
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> !site.central.requests().isEmpty()
                            && site.status()
                                    .path("forwarder")
                                    .path("state")
                                    .asText()
                                    .equals("backing_off"));
            JsonNode forwarder = site.status().path("forwarder");
            Instant next = Instant.parse(forwarder.path("nextAttemptAt").asText());
            assertThat(next)
                    .as("clamped to forwarder.maxRetryAfter (5 min)")
                    .isBetween(Instant.now().plusSeconds(4 * 60), Instant.now().plusSeconds(5 * 60 + 1));

            site.central.otherwise(HostileCentral.applying()); // central recovers; the bridge would wait 5 min
            int seen = site.central.requests().size();
            HttpResponse<String> anonymous = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create(
                                            "http://127.0.0.1:" + site.bridge.adminPort() + "/api/forwarder/retry-now"))
                                    .POST(HttpRequest.BodyPublishers.noBody())
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertThat(anonymous.statusCode()).as("behind the admin token").isEqualTo(401);
            assertThat(site.central.requests())
                    .as("nothing sent while it waits")
                    .hasSize(seen);

            HttpResponse<String> ended = site.post("/api/forwarder/retry-now");
            assertThat(ended.statusCode()).isEqualTo(200);
            assertThat(DeviceSimulator.JSON
                            .readTree(ended.body())
                            .path("requestWaitWasUntil")
                            .asText())
                    .isNotEmpty();
            for (int i = 1; i <= COMMANDS; i++) {
                assertThat(device.awaitFinal("W-" + i).path("status").asText()).isEqualTo("accepted");
            }
            assertThat(site.status().path("forwarder").path("nextAttemptAt").isNull())
                    .isTrue();
        }
    }
}
