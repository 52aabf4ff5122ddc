package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.edgebridge.central.CentralSim;
import org.edgebridge.central.Faults;
import org.edgebridge.central.Inbox;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.outbox.CommandRecord;
import org.edgebridge.outbox.CommandState;
import org.edgebridge.outbox.HistoryEntry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #14, "one poison event does not stop a site": central answers 500 to every request holding one given
 * event. With one forwarder worker every batch held it, so the whole site stopped. Now the event is isolated by
 * bisection, held back, and parked with its own code after forwarder.maxServerErrors rounds; the other devices'
 * commands flow all along. Prints the figures that docs/forwarding.md reports.
 */
class PoisonEventIT {
    private static final int DEVICES = 4;
    private static final int COMMANDS = 50;

    @TempDir
    Path dir;

    @Test
    void one_event_that_makes_central_fail_is_parked_and_every_other_device_keeps_flowing() throws Exception {
        try (TestSite site = new TestSite(dir, "forwarder.maxServerErrors=3");
                DeviceSimulator poisoned = site.device("dev-poison")) {
            site.central.faults(Faults.poison("P-2", 500));
            poisoned.connectAndSubscribe();
            List<DeviceSimulator> others = new ArrayList<>();
            for (int d = 1; d <= DEVICES; d++) {
                DeviceSimulator device = site.device("dev-" + d);
                device.connectAndSubscribe();
                others.add(device);
            }
            try {
                Instant start = Instant.now();
                for (int i = 1; i <= 3; i++) {
                    poisoned.publish("t", DeviceSimulator.command("P-" + i, ""));
                }
                poisoned.awaitReceipt("P-3", "stored");
                for (int i = 1; i <= COMMANDS; i++) {
                    for (int d = 0; d < DEVICES; d++) {
                        others.get(d).publish("t", DeviceSimulator.command("D" + (d + 1) + "-" + i, ""));
                    }
                }
                for (int d = 0; d < DEVICES; d++) {
                    for (int i = 1; i <= COMMANDS; i++) {
                        assertThat(others.get(d)
                                        .awaitFinal("D" + (d + 1) + "-" + i)
                                        .path("status")
                                        .asText())
                                .isEqualTo("accepted");
                    }
                }
                Instant othersDone = Instant.now();
                // a failure counts against P-2 only when central answers another event right after it
                // (docs/forwarding.md,
                // "Blame"): one of the other devices sends now and then
                int[] n = {0};
                await().atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(500))
                        .until(() -> {
                            others.get(0).publish("t", DeviceSimulator.command("N-" + n[0]++, ""));
                            return site.bridge
                                            .outbox()
                                            .find("dev-poison", "P-2")
                                            .orElseThrow()
                                            .state()
                                    == CommandState.PARKED;
                        });
                CommandRecord parked =
                        site.bridge.outbox().find("dev-poison", "P-2").orElseThrow();
                assertThat(parked.code()).isEqualTo("ingest_server_error");
                assertThat(parked.retryLaters())
                        .as("server errors are not retry_later answers")
                        .isZero();
                assertThat(poisoned.awaitFinal("P-1").path("status").asText()).isEqualTo("accepted");
                assertThat(site.bridge
                                .outbox()
                                .find("dev-poison", "P-3")
                                .orElseThrow()
                                .state())
                        .as("behind its parked predecessor, in sequence order")
                        .isEqualTo(CommandState.PENDING);
                assertThat(site.central.inbox().entries())
                        .extracting(Inbox.Entry::eventId)
                        .doesNotContain("P-2", "P-3");
                assertThat(site.central.inbox().stats().get("orderingViolations"))
                        .isZero();
                assertThat(site.getJson("/api/status").path("alarms").findValuesAsText("code"))
                        .contains("parked_commands");

                Instant parkedAt = site.bridge.outbox().reads().history(parked.id()).stream()
                        .filter(h -> h.kind().equals("parked"))
                        .map(HistoryEntry::at)
                        .findFirst()
                        .orElseThrow();
                List<CentralSim.Request> log = site.central.requestLog();
                long failed = log.stream().filter(r -> r.status() == 500).count();
                List<Instant> othersApplied = site.central.inbox().entries().stream()
                        .filter(e -> !e.deviceId().equals("dev-poison"))
                        .map(Inbox.Entry::appliedAt)
                        .sorted()
                        .toList();
                long beforePark = othersApplied.stream()
                        .filter(at -> !at.isAfter(parkedAt))
                        .count();
                Duration othersSpan =
                        Duration.between(othersApplied.get(0), othersApplied.get(othersApplied.size() - 1));
                System.out.printf(
                        "FIGURES poison: parked %d ms after the first command was published; %d requests, %d "
                                + "answered 500; other devices: %d commands applied by central in %d ms (first to last), %d of them "
                                + "before the park; all final at the devices %d ms after the start%n",
                        Duration.between(start, parkedAt).toMillis(),
                        log.size(),
                        failed,
                        othersApplied.size(),
                        othersSpan.toMillis(),
                        beforePark,
                        Duration.between(start, othersDone).toMillis());

                // an admin requeues it once central is fixed: it goes, and its device with it
                site.central.faults(Faults.NONE);
                assertThat(site.post("/api/outbox/dev-poison/P-2/requeue", "test-token")
                                .statusCode())
                        .isEqualTo(200);
                assertThat(poisoned.awaitFinal("P-3").path("status").asText()).isEqualTo("accepted");
                assertThat(site.bridge
                                .outbox()
                                .find("dev-poison", "P-2")
                                .orElseThrow()
                                .code())
                        .isNull();
            } finally {
                others.forEach(DeviceSimulator::close);
            }
        }
    }
}
