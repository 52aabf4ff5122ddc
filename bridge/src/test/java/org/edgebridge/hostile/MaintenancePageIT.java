package org.edgebridge.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.outbox.CommandState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A gateway in front of central that serves its maintenance page as a 200 (no receipts array) for 12 s, to every
 * request: that is central not answering, not every event failing. And a central that sheds load the same while. With the SHIPPED DEFAULTS nothing may be parked
 * (before, every event counted a missing receipt per request and the whole backlog was parked as central_no_receipt
 * within seconds); the forwarder backs off, the missing receipts show in /metrics, and once central answers again
 * every command is applied.
 */
class MaintenancePageIT {
    private static final int DEVICES = 10;
    private static final int COMMANDS = 3;

    @TempDir
    Path dir;

    @Test
    void a_maintenance_page_served_as_200_to_every_request_parks_nothing_and_the_site_catches_up() throws Exception {
        String metrics = centralAnswersSoFor12Seconds("maintenance page", HostileCentral.status(200, null));
        assertThat(metrics).containsPattern("edgebridge_forwarder_missing_receipts_total [1-9]");
    }

    /**
     * Central sheds load with retry_later in 0 ms for every event for 12 s: each event waits at least its per-event
     * backoff, so it cannot spend its forwarder.maxAttempts (50) in a fraction of a second and be parked.
     */
    @Test
    void retry_later_in_0_ms_for_every_event_parks_nothing_and_the_site_catches_up() throws Exception {
        centralAnswersSoFor12Seconds(
                "retry_later in 0 ms", HostileCentral.receipts("retry_later", "\"retryAfterMs\":0"));
    }

    /** Every request is answered with {@code reply} for 12 s, then applied; @return /metrics at the end */
    private String centralAnswersSoFor12Seconds(String name, HostileCentral.Reply reply) throws Exception {
        try (HostileSite site = new HostileSite(dir)) {
            Instant until = Instant.now().plusSeconds(12);
            HostileCentral.Reply applying = HostileCentral.applying();
            site.central.otherwise(
                    (request, wire) -> (Instant.now().isBefore(until) ? reply : applying).answer(request, wire));
            List<DeviceSimulator> devices = new ArrayList<>();
            for (int d = 1; d <= DEVICES; d++) {
                devices.add(site.device("dev-" + d));
            }
            for (int i = 1; i <= COMMANDS; i++) {
                for (int d = 1; d <= DEVICES; d++) {
                    devices.get(d - 1).publish("t", DeviceSimulator.command("M" + d + "-" + i, ""));
                }
            }
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> site.central.requests().size() >= 3);
            await().atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        assertThat(site.bridge.outbox().reads().counts().count(CommandState.PARKED))
                                .as(name + " parks nothing")
                                .isZero();
                        return site.central.applied().size() == DEVICES * COMMANDS;
                    });
            for (int d = 1; d <= DEVICES; d++) {
                for (int i = 1; i <= COMMANDS; i++) {
                    assertThat(devices.get(d - 1)
                                    .awaitFinal("M" + d + "-" + i)
                                    .path("status")
                                    .asText())
                            .isEqualTo("accepted");
                }
            }
            System.out.printf(
                    "FIGURES %s: %d requests, all %d commands applied %d ms after it ended%n",
                    name,
                    site.central.requests().size(),
                    DEVICES * COMMANDS,
                    Duration.between(until, Instant.now()).toMillis());
            return site.metrics();
        }
    }
}
