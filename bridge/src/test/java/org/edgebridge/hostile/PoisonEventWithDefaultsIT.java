package org.edgebridge.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.outbox.CommandState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Issue 23, points 1 and 2: one event that makes central fail (a 500, a 503, a 403, a 409, a connection reset, a 2xx
 * without receipts or no reply, only when that event is in the request), and 20 other devices with 3 commands each, with the SHIPPED DEFAULTS. The failure follows one event:
 * the other devices' commands flow within seconds, the circuit breaker never opens, and the event is parked with its
 * own code. Prints the figures docs/forwarding.md gives.
 */
@Execution(ExecutionMode.CONCURRENT)
class PoisonEventWithDefaultsIT {
    private static final int DEVICES = 20;
    private static final int COMMANDS = 3;

    @TempDir
    Path dir;

    @Test
    void a_500_that_follows_one_event_parks_it_and_every_other_device_flows_within_seconds() throws Exception {
        poisonScenario("500", HostileCentral.status(500, null), "ingest_server_error");
    }

    @Test
    void a_reset_connection_that_follows_one_event_parks_it_and_every_other_device_flows_within_seconds()
            throws Exception {
        poisonScenario("reset", HostileCentral.reset(), "ingest_connection_dropped");
    }

    /** A 4xx that is no configuration fault (409 here) whenever the poison is in the request: it must not pause the site. */
    @Test
    void a_409_that_follows_one_event_parks_it_and_every_other_device_flows_within_seconds() throws Exception {
        poisonScenario("409", HostileCentral.status(409, null), "ingest_refused");
    }

    /**
     * A 403 whenever the poison is in the request (a web application firewall before central that dislikes its
     * payload): it must not pause the site as a wrong token would.
     */
    @Test
    void a_403_that_follows_one_event_parks_it_and_every_other_device_flows_within_seconds() throws Exception {
        poisonScenario("403", HostileCentral.status(403, null), "ingest_forbidden");
    }

    /**
     * A 503 whenever the poison is in the request (a gateway in front of a central that dies on that event), with a
     * Retry-After: it must neither hold the site nor open its circuit breaker.
     */
    @Test
    void a_503_that_follows_one_event_parks_it_and_every_other_device_flows_within_seconds() throws Exception {
        poisonScenario("503", HostileCentral.status(503, "1"), "ingest_unavailable");
    }

    /** A 200 without a receipts array (an error page sent as 200) whenever the poison is in the request. */
    @Test
    void a_2xx_without_receipts_that_follows_one_event_parks_it_and_every_other_device_flows_within_seconds()
            throws Exception {
        poisonScenario("200 without receipts", HostileCentral.status(200, null), "central_no_receipt");
    }

    /**
     * A central that never answers a request holding the poison. The one setting not at its default is the one the
     * scenario is about: ingest.timeout 2 s instead of 30 s, so that the six levels of the bisection and five rounds
     * alone take seconds, not minutes.
     */
    @Test
    void a_timeout_that_follows_one_event_parks_it_and_every_other_device_flows() throws Exception {
        poisonScenario("silent", HostileCentral.silent(), "ingest_timeout", "ingest.timeout=2s");
    }

    private void poisonScenario(String name, HostileCentral.Reply poison, String parkCode, String... sets)
            throws Exception {
        try (HostileSite site = new HostileSite(dir, sets)) {
            site.central.otherwise(HostileCentral.poisoned("P-1", poison));
            DeviceSimulator poisoned = site.device("dev-poison");
            List<DeviceSimulator> others = new ArrayList<>();
            for (int d = 1; d <= DEVICES; d++) {
                others.add(site.device("dev-" + d));
            }
            AtomicBoolean breakerOpened = new AtomicBoolean();
            Instant start = Instant.now();
            poisoned.publish("t", DeviceSimulator.command("P-1", ""));
            poisoned.publish("t", DeviceSimulator.command("P-2", ""));
            for (int i = 1; i <= COMMANDS; i++) {
                for (int d = 0; d < DEVICES; d++) {
                    others.get(d).publish("t", DeviceSimulator.command("D" + (d + 1) + "-" + i, ""));
                }
            }
            await().atMost(Duration.ofSeconds(sets.length == 0 ? 20 : 60))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        if (site.status()
                                .path("forwarder")
                                .path("circuitBreaker")
                                .asText()
                                .equals("open")) {
                            breakerOpened.set(true);
                        }
                        return othersApplied(site) == DEVICES * COMMANDS;
                    });
            Duration othersDone = Duration.between(start, Instant.now());
            // a failure counts against P-1 only when central answers another event right after it (docs/forwarding.md,
            // "Blame"): one of the other devices sends now and then
            int[] n = {0};
            await().atMost(Duration.ofSeconds(sets.length == 0 ? 60 : 180))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        if (site.status()
                                .path("forwarder")
                                .path("circuitBreaker")
                                .asText()
                                .equals("open")) {
                            breakerOpened.set(true);
                        }
                        if (n[0]++ % 5 == 0) {
                            others.get(0).publish("t", DeviceSimulator.command("N-" + n[0], ""));
                        }
                        return site.bridge
                                        .outbox()
                                        .find("dev-poison", "P-1")
                                        .orElseThrow()
                                        .state()
                                == CommandState.PARKED;
                    });
            Duration parkedAfter = Duration.between(start, Instant.now());
            assertThat(breakerOpened)
                    .as("a failure that follows one event never opens the breaker")
                    .isFalse();
            assertThat(site.bridge
                            .outbox()
                            .find("dev-poison", "P-1")
                            .orElseThrow()
                            .code())
                    .isEqualTo(parkCode);
            assertThat(site.status().path("alarms").findValuesAsText("code")).contains("parked_commands");
            long poisonRequests = site.central.requests().stream()
                    .filter(r -> r.events().stream().anyMatch(e -> e.eventId().equals("P-1")))
                    .count();
            System.out.printf(
                    "FIGURES poison %s: the other %d commands applied %d ms after the first publish, the poison "
                            + "parked after %d ms; %d requests, %d of them held the poison%n",
                    name,
                    DEVICES * COMMANDS,
                    othersDone.toMillis(),
                    parkedAfter.toMillis(),
                    site.central.requests().size(),
                    poisonRequests);
            assertThat(site.bridge
                            .outbox()
                            .find("dev-poison", "P-2")
                            .orElseThrow()
                            .state())
                    .as("behind its parked predecessor, in sequence order")
                    .isEqualTo(CommandState.PENDING);
            assertThat(site.post("/api/outbox/dev-poison/P-1/reject").statusCode())
                    .isEqualTo(200);
            assertThat(poisoned.awaitFinal("P-2").path("status").asText())
                    .as("the poisoned device's next command goes once an admin rejected the parked one")
                    .isEqualTo("accepted");
        }
    }

    @Test
    void the_count_toward_parking_survives_a_restart() throws Exception {
        try (HostileSite site = new HostileSite(dir)) {
            site.central.otherwise(HostileCentral.poisoned("P-1", HostileCentral.status(500, null)));
            DeviceSimulator poisoned = site.device("dev-poison");
            DeviceSimulator other = site.device("dev-other");
            poisoned.publish("t", DeviceSimulator.command("P-1", ""));
            other.publish("t", DeviceSimulator.command("O-1", ""));
            DeviceSimulator neighbour = other;
            int[] n = {0};
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> {
                        neighbour.publish(
                                "t",
                                DeviceSimulator.command("N-" + n[0]++, "")); // the proof: docs/forwarding.md, "Blame"
                        return failedAlone(site) >= 2;
                    });
            site.restart();
            other = site.device("dev-other");
            other.publish("t", DeviceSimulator.command("O-2", ""));
            other.awaitReceipt("O-2", "stored");
            DeviceSimulator after = other;
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> {
                        after.publish("t", DeviceSimulator.command("M-" + n[0]++, ""));
                        return site.bridge
                                        .outbox()
                                        .find("dev-poison", "P-1")
                                        .orElseThrow()
                                        .state()
                                == CommandState.PARKED;
                    });
            assertThat(failedAlone(site))
                    .as("five failures alone in all: four counted, the fifth parks")
                    .isEqualTo(4);
            assertThat(site.central.applied("dev-other", "O-2")).isTrue();
        }
    }

    private static long failedAlone(HostileSite site) {
        long id = site.bridge.outbox().find("dev-poison", "P-1").orElseThrow().id();
        return site.bridge.outbox().reads().history(id).stream()
                .filter(h -> h.kind().equals("failed_alone"))
                .mapToLong(h -> h.times())
                .sum();
    }

    private static long othersApplied(HostileSite site) {
        return site.central.applied().keySet().stream()
                .filter(e -> !e.deviceId().equals("dev-poison"))
                .count();
    }
}
