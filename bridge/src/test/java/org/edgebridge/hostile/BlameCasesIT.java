package org.edgebridge.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.outbox.CommandState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The four cases of issue 39, with the shipped defaults (docs/forwarding.md, "Blame"): a central deploy on a quiet
 * site, two poisons at once, a gateway that answers 400 to everything, and a status that must not cry wolf. Each was
 * broken before the blame model: the quiet site's command was parked, the two poisons were never isolated, the
 * backlog was rejected, and the page said "central is not answering" while it answered every other event.
 *
 * <p>The cases run at once, each with its own bridge and central: they spend their minutes waiting for the shipped
 * defaults' timers, not on the CPU.
 */
@Execution(ExecutionMode.CONCURRENT)
class BlameCasesIT {
    @TempDir
    Path dir;

    @Test
    void a_central_deploy_on_a_quiet_site_parks_nothing_and_the_command_goes_once_central_is_back() throws Exception {
        try (HostileSite site = new HostileSite(dir)) {
            DeviceSimulator device = site.device("quiet-1");
            device.publish("t", DeviceSimulator.command("Q-1", ""));
            assertThat(device.awaitFinal("Q-1").path("status").asText()).isEqualTo("accepted");
            site.central.otherwise(HostileCentral.status(503, null)); // the deploy: 35 s of 503 to everything
            device.publish("t", DeviceSimulator.command("Q-2", ""));
            device.awaitReceipt("Q-2", "stored");
            await().during(Duration.ofSeconds(35))
                    .atMost(Duration.ofSeconds(40))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> site.bridge
                                    .outbox()
                                    .find("quiet-1", "Q-2")
                                    .orElseThrow()
                                    .state()
                            != CommandState.PARKED);
            site.central.otherwise(HostileCentral.applying());
            Instant back = Instant.now();
            assertThat(device.awaitFinal("Q-2").path("status").asText())
                    .as("never parked; sent once central is back")
                    .isEqualTo("accepted");
            System.out.printf(
                    "FIGURES blame case 1: Q-2 accepted %d ms after central came back%n",
                    Duration.between(back, Instant.now()).toMillis());
            assertThat(site.central.applied("quiet-1", "Q-2")).isTrue();
        }
    }

    @Test
    void two_poisons_on_two_devices_are_each_parked_while_every_other_device_flows() throws Exception {
        try (HostileSite site = new HostileSite(dir)) {
            Set<String> poisons = Set.of("P-1", "P-2");
            HostileCentral.Reply normal = HostileCentral.applying();
            HostileCentral.Reply fail = HostileCentral.status(500, null);
            site.central.otherwise((request, wire) -> (request.events().stream()
                                    .anyMatch(e -> poisons.contains(e.eventId()))
                            ? fail
                            : normal)
                    .answer(request, wire));
            DeviceSimulator p1 = site.device("dev-p1");
            DeviceSimulator p2 = site.device("dev-p2");
            List<DeviceSimulator> others = new ArrayList<>();
            for (int d = 1; d <= 20; d++) {
                others.add(site.device("dev-" + d));
            }
            Instant start = Instant.now();
            p1.publish("t", DeviceSimulator.command("P-1", ""));
            p2.publish("t", DeviceSimulator.command("P-2", ""));
            for (int i = 1; i <= 3; i++) {
                for (int d = 0; d < others.size(); d++) {
                    others.get(d).publish("t", DeviceSimulator.command("D" + (d + 1) + "-" + i, ""));
                }
            }
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> othersApplied(site) == 60);
            Duration othersDone = Duration.between(start, Instant.now());
            // the proof of a poison's failure is another device's answer right after it: a neighbour sends now and then
            DeviceSimulator neighbour = site.device("neighbour");
            int[] n = {0};
            await().atMost(Duration.ofMinutes(4))
                    .pollInterval(Duration.ofSeconds(2))
                    .until(() -> {
                        neighbour.publish("t", DeviceSimulator.command("N-" + n[0]++, ""));
                        return parked(site, "dev-p1", "P-1") && parked(site, "dev-p2", "P-2");
                    });
            System.out.printf(
                    "FIGURES blame case 2: the other 60 commands applied %d ms after the first publish, both "
                            + "poisons parked after %d ms%n",
                    othersDone.toMillis(),
                    Duration.between(start, Instant.now()).toMillis());
            assertThat(site.bridge.outbox().find("dev-p1", "P-1").orElseThrow().code())
                    .isEqualTo("ingest_server_error");
            assertThat(site.status().path("forwarder").path("state").asText()).isNotEqualTo("paused_by_central");
        }
    }

    /**
     * Found from outside (2026-12-06): central hangs (no answer until {@code ingest.timeout}, 30 s) on any request that
     * holds H-1 or H-2, while 8 other devices send one command a second. A probe used to go before the main request on
     * the forwarder's one thread, so each hang held every other device: their commands' publish-to-final median was 82 s.
     * Now a probe goes apart ({@code ProbeThread}; the main request waits for it at most {@code PROBE_GRACE}) and a
     * group is probed one device at a time. Each poison's first request still hangs once (it is in a main request: the
     * forwarder sends one at a time by default), so the commands measured are those sent after the first 70 s.
     */
    @Test
    void two_poisons_central_hangs_on_never_hold_the_other_devices_for_its_timeout() throws Exception {
        try (HostileSite site = new HostileSite(dir)) {
            Set<String> poisons = Set.of("H-1", "H-2");
            HostileCentral.Reply normal = HostileCentral.applying();
            HostileCentral.Reply hang = HostileCentral.silent();
            site.central.otherwise((request, wire) -> (request.events().stream()
                                    .anyMatch(e -> poisons.contains(e.eventId()))
                            ? hang
                            : normal)
                    .answer(request, wire));
            site.device("dev-h1").publish("t", DeviceSimulator.command("H-1", ""));
            site.device("dev-h2").publish("t", DeviceSimulator.command("H-2", ""));
            List<DeviceSimulator> others = new ArrayList<>();
            for (int d = 1; d <= 8; d++) {
                others.add(site.device("dev-" + d));
            }
            Map<String, Instant> sentAt = new HashMap<>();
            Map<String, Instant> finalAt = new HashMap<>();
            Instant start = Instant.now();
            for (int second = 1; second <= 90; second++) {
                for (int d = 0; d < others.size(); d++) {
                    String id = "D" + (d + 1) + "-" + second;
                    others.get(d).publish("t", DeviceSimulator.command(id, ""));
                    sentAt.put(id, Instant.now());
                }
                Instant next = start.plusSeconds(second);
                await().atMost(Duration.ofSeconds(2))
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> {
                            noteFinals(others, sentAt, finalAt);
                            return !Instant.now().isBefore(next); // the devices' pace: one command a second each
                        });
            }
            await().atMost(Duration.ofMinutes(2))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        noteFinals(others, sentAt, finalAt);
                        return finalAt.size() == sentAt.size();
                    });
            if (Boolean.getBoolean("blame.dump")) {
                site.central
                        .requests()
                        .forEach(r -> System.out.println("DUMP " + r.at() + " " + r.number() + " "
                                + r.events().stream().map(e -> e.eventId()).toList()));
            }
            Instant settledIn = start.plusSeconds(70);
            List<Long> waits = sentAt.keySet().stream()
                    .filter(id -> sentAt.get(id).isAfter(settledIn))
                    .map(id -> Duration.between(sentAt.get(id), finalAt.get(id)).toMillis())
                    .sorted()
                    .toList();
            long median = waits.get(waits.size() / 2);
            System.out.printf(
                    "FIGURES blame, two poisons central hangs on, 8 devices at 1/s: the %d commands sent after "
                            + "the first 70 s publish->final median %d ms, p99 %d ms, longest %d ms%n",
                    waits.size(), median, waits.get(waits.size() * 99 / 100), waits.get(waits.size() - 1));
            assertThat(median)
                    .as("I2: a poison central hangs on never holds the other devices for ingest.timeout (30 s)")
                    .isLessThan(Duration.ofSeconds(30).toMillis());
            for (DeviceSimulator device : others) {
                assertThat(device.receipts().stream()
                                .filter(r -> r.path("final").asBoolean())
                                .allMatch(r -> r.path("status").asText().equals("accepted")))
                        .isTrue();
            }
        }
    }

    private static void noteFinals(
            List<DeviceSimulator> devices, Map<String, Instant> sentAt, Map<String, Instant> finalAt) {
        Instant now = Instant.now();
        for (DeviceSimulator device : devices) {
            for (com.fasterxml.jackson.databind.JsonNode r : device.receipts()) {
                String id = r.path("commandId").asText();
                if (r.path("final").asBoolean() && sentAt.containsKey(id)) {
                    finalAt.putIfAbsent(id, now);
                }
            }
        }
    }

    @Test
    void a_gateway_answering_400_to_everything_rejects_nothing_and_the_backlog_goes_once_it_is_fixed()
            throws Exception {
        try (HostileSite site = new HostileSite(dir)) {
            site.central.otherwise(HostileCentral.status(400, null));
            List<DeviceSimulator> devices = new ArrayList<>();
            for (int d = 1; d <= 20; d++) {
                DeviceSimulator device = site.device("gw-" + d);
                device.publish("t", DeviceSimulator.command("G-" + d, ""));
                devices.add(device);
            }
            await().during(Duration.ofSeconds(20))
                    .atMost(Duration.ofSeconds(25))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> rejectedOrParked(site) == 0);
            assertThat(site.central.requests()).as("the gateway was asked").isNotEmpty();
            assertThat(site.status().path("alarms").findValuesAsText("code")).contains("central_unreachable");
            site.central.otherwise(HostileCentral.applying());
            for (int d = 1; d <= 20; d++) {
                assertThat(devices.get(d - 1)
                                .awaitFinal("G-" + d)
                                .path("status")
                                .asText())
                        .isEqualTo("accepted");
            }
        }
    }

    @Test
    void once_a_poison_is_parked_the_status_does_not_say_central_fails() throws Exception {
        try (HostileSite site = new HostileSite(dir)) {
            site.central.otherwise(HostileCentral.poisoned("P-1", HostileCentral.status(500, null)));
            DeviceSimulator poisoned = site.device("dev-poison");
            DeviceSimulator a = site.device("dev-a");
            DeviceSimulator b = site.device("dev-b");
            poisoned.publish("t", DeviceSimulator.command("P-1", ""));
            int[] n = {0};
            await().atMost(Duration.ofMinutes(3))
                    .pollInterval(Duration.ofSeconds(1))
                    .until(() -> {
                        (n[0] % 2 == 0 ? a : b).publish("t", DeviceSimulator.command("N-" + n[0]++, ""));
                        return parked(site, "dev-poison", "P-1");
                    });
            assertThat(site.status().path("alarms").findValuesAsText("code"))
                    .as("central answered every other event")
                    .doesNotContain("central_unreachable")
                    .contains("parked_commands");
            assertThat(site.status()
                            .path("forwarder")
                            .path("consecutiveFailures")
                            .asInt())
                    .isZero();
        }
    }

    private static boolean parked(HostileSite site, String device, String commandId) {
        return site.bridge.outbox().find(device, commandId).orElseThrow().state() == CommandState.PARKED;
    }

    private static long othersApplied(HostileSite site) {
        return site.central.applied().keySet().stream()
                .filter(e -> e.deviceId().startsWith("dev-") && !e.deviceId().startsWith("dev-p"))
                .count();
    }

    private static long rejectedOrParked(HostileSite site) {
        long n = 0;
        for (int d = 1; d <= 20; d++) {
            CommandState s =
                    site.bridge.outbox().find("gw-" + d, "G-" + d).orElseThrow().state();
            if (s == CommandState.REJECTED || s == CommandState.PARKED) {
                n++;
            }
        }
        return n;
    }
}
