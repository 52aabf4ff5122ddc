package org.edgebridge.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.outbox.CommandRecord;
import org.edgebridge.outbox.HistoryEntry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23, point 8, through the real forwarder with the SHIPPED DEFAULTS: central answers 500 to every request while
 * 500 commands wait. Each claim and release (and each request of a bisection) used to write a history line; now a
 * repeated line is folded into the command's line of the same kind, so each command keeps a handful of lines however
 * long the outage lasts.
 */
class HistoryInOutageIT {
    private static final int DEVICES = 10;
    private static final int COMMANDS = 50;

    @TempDir
    Path dir;

    @Test
    void an_outage_folds_every_repeated_attempt_and_release_into_one_line_per_kind() throws Exception {
        try (HostileSite site = new HostileSite(dir)) {
            site.central.otherwise(HostileCentral.status(500, null));
            List<DeviceSimulator> devices = new ArrayList<>();
            for (int d = 1; d <= DEVICES; d++) {
                devices.add(site.device("dev-" + d));
            }
            for (int i = 1; i <= COMMANDS; i++) {
                for (int d = 0; d < DEVICES; d++) {
                    devices.get(d).publish("t", DeviceSimulator.command("H" + d + "-" + i, ""));
                }
            }
            // a step sends at most two requests and backs off after a failed one (docs/forwarding.md, "Blame")
            await().atMost(Duration.ofSeconds(120))
                    .until(() -> site.central.requests().size() >= 8);
            long lines = 0;
            int mostTimes = 0;
            for (int d = 0; d < DEVICES; d++) {
                for (int i = 1; i <= COMMANDS; i++) {
                    CommandRecord r = site.bridge
                            .outbox()
                            .find("dev-" + (d + 1), "H" + d + "-" + i)
                            .orElseThrow();
                    List<HistoryEntry> history = site.bridge.outbox().reads().history(r.id());
                    assertThat(history.stream()
                                    .map(h -> h.kind() + "/" + h.code())
                                    .distinct()
                                    .count())
                            .as("one line per kind")
                            .isEqualTo(history.size());
                    lines += history.size();
                    mostTimes = Math.max(
                            mostTimes,
                            history.stream().mapToInt(HistoryEntry::times).max().orElse(0));
                }
            }
            System.out.printf(
                    "FIGURES history in outage: %d requests answered 500, %d commands: %d history lines, the "
                            + "most repeated line folded %d times%n",
                    site.central.requests().size(), DEVICES * COMMANDS, lines, mostTimes);
            assertThat(lines).isLessThanOrEqualTo(2L * DEVICES * COMMANDS);
            assertThat(mostTimes).as("attempts were folded").isGreaterThan(1);
        }
    }
}
