package org.edgebridge.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A report of expired commands (docs/protocol.md §2.2) is a request like any: a central that fails on it every time
 * (a 500 whenever the request carries an {@code expired} list) must neither hold the other devices nor hold the
 * device of the expired command for ever. SHIPPED DEFAULTS: the report is sent again after a backoff of its own while
 * the other devices flow, and is given up after {@code forwarder.maxServerErrors} (5) failures in a row while central
 * answered other requests; then that device's next command goes.
 */
class PoisonExpiryReportIT {
    @TempDir
    Path dir;

    @Test
    void a_report_central_always_fails_on_is_given_up_while_the_other_devices_flow() throws Exception {
        try (HostileSite site = new HostileSite(dir)) {
            HostileCentral.Reply applying = HostileCentral.applying();
            HostileCentral.Reply fail = HostileCentral.status(500, null);
            site.central.otherwise((request, wire) ->
                    (request.json().path("expired").isEmpty() ? applying : fail).answer(request, wire));
            DeviceSimulator expiring = site.device("dev-exp");
            DeviceSimulator other = site.device("dev-other");

            // the command expires while the forwarder is paused, so it is never sent: it becomes final here
            assertThat(site.post("/api/forwarder/pause").statusCode()).isEqualTo(200);
            expiring.publish(
                    "t",
                    DeviceSimulator.command(
                            "E-1", "\"expiresAt\":\"" + Instant.now().plusSeconds(2) + "\""));
            expiring.awaitReceipt("E-1", "stored");
            assertThat(expiring.awaitFinal("E-1").path("code").asText()).isEqualTo("expired");
            expiring.publish("t", DeviceSimulator.command("E-2", ""));
            expiring.awaitReceipt("E-2", "stored");
            assertThat(site.post("/api/forwarder/resume").statusCode()).isEqualTo(200);

            // the other device flows while the report fails; E-2 waits behind the report
            AtomicInteger sent = new AtomicInteger();
            Instant start = Instant.now();
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> {
                        String id = "O-" + sent.incrementAndGet();
                        other.publish("t", DeviceSimulator.command(id, ""));
                        assertThat(other.awaitFinal(id).path("status").asText()).isEqualTo("accepted");
                        if (!site.central.applied("dev-exp", "E-2")) {
                            assertThat(reports(site))
                                    .as("E-2 waits until the report is answered or given up")
                                    .isLessThan(5);
                        }
                        return site.central.applied("dev-exp", "E-2");
                    });
            Duration after = Duration.between(start, Instant.now());
            assertThat(reports(site))
                    .as("given up after forwarder.maxServerErrors failures")
                    .isEqualTo(5);
            assertThat(expiring.awaitFinal("E-2").path("status").asText()).isEqualTo("accepted");
            assertThat(site.status()
                            .path("forwarder")
                            .path("expiry")
                            .path("reportsRefused")
                            .asLong())
                    .isEqualTo(1);
            assertThat(site.status().path("forwarder").path("circuitBreaker").asText())
                    .isEqualTo("closed");
            System.out.printf(
                    "FIGURES poison expiry report: given up after %d ms and %d reports; %d commands of the "
                            + "other device applied meanwhile%n",
                    after.toMillis(), reports(site), sent.get());
        }
    }

    private static long reports(HostileSite site) {
        return site.central.requests().stream()
                .filter(r -> !r.json().path("expired").isEmpty())
                .count();
    }
}
