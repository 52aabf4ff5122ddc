package org.edgebridge.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.outbox.CommandState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The other side of issue 23's isolation: the breaker ignores failures that may follow one event until a bisection
 * says whose they were. A central that fails every request (500s, or resets every connection) must still open the
 * breaker with the SHIPPED DEFAULTS, and park nothing.
 */
class CentralDownIT {
    @TempDir
    Path dir;

    @Test
    void a_central_that_answers_500_to_everything_still_opens_the_breaker_and_parks_nothing() throws Exception {
        downScenario(HostileCentral.status(500, null));
    }

    @Test
    void a_central_that_resets_every_connection_still_opens_the_breaker_and_parks_nothing() throws Exception {
        downScenario(HostileCentral.reset());
    }

    private void downScenario(HostileCentral.Reply always) throws Exception {
        try (HostileSite site = new HostileSite(dir)) {
            site.central.otherwise(always);
            DeviceSimulator a = site.device("dev-a");
            DeviceSimulator b = site.device("dev-b");
            for (int i = 1; i <= 5; i++) {
                a.publish("t", DeviceSimulator.command("A-" + i, ""));
                b.publish("t", DeviceSimulator.command("B-" + i, ""));
            }
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> site.status()
                            .path("forwarder")
                            .path("circuitBreaker")
                            .asText()
                            .equals("open"));
            assertThat(site.status().path("alarms").findValuesAsText("code")).contains("central_unreachable");
            assertThat(site.bridge.outbox().reads().counts().count(CommandState.PARKED))
                    .isZero();
            site.central.otherwise(HostileCentral.applying());
            assertThat(site.post("/api/forwarder/retry-now").statusCode()).isEqualTo(200);
            assertThat(b.awaitFinal("B-5").path("status").asText()).isEqualTo("accepted");
            assertThat(a.awaitFinal("A-5").path("status").asText()).isEqualTo("accepted");
        }
    }
}
