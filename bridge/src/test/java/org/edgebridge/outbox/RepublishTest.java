package org.edgebridge.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 40 point 9: final receipts committed but never handed to the broker are published again device by device,
 * and the devices table forgets devices it holds nothing of.
 */
class RepublishTest {
    @TempDir
    Path dir;

    /**
     * A device that never reads has 3,000 unpublished finals, stored first; five others have 3 each. Before, the
     * republish took the oldest 1,000, every 10 s: all the mute device's, for ever. Now one call takes at most an
     * equal share of each device's (1,000 / 6), and every device's come in it.
     */
    @Test
    void a_device_that_never_reads_does_not_hold_the_other_devices_finals_behind_its_own() {
        try (OutboxFixture f = OutboxFixture.at(dir.resolve("outbox.db"))) {
            f.backlog("M-", 1, 3_000, CommandState.ACCEPTED); // dev-0, receipts counted as published
            try (var h = OutboxDatabase.open(f.outbox().file()).open()) {
                h.execute("UPDATE commands SET receipt_published = 0"); // the broker refused them all: it does not read
            }
            for (int d = 1; d <= 5; d++) {
                for (int i = 1; i <= 3; i++) {
                    f.finalRow("dev-other-" + d, "O-" + d + "-" + i, CommandState.ACCEPTED);
                }
            }
            List<CommandRecord> turn = f.outbox().unpublishedFinals(1000);
            assertThat(turn.stream().filter(r -> r.clientId().equals("dev-0")).count())
                    .isEqualTo(1000 / 6);
            assertThat(turn.stream()
                            .filter(r -> r.clientId().startsWith("dev-other"))
                            .count())
                    .isEqualTo(15);
        }
    }

    /** 300 mute devices with 20 each, and one more: its receipt comes in the first turn, not after the 6,000. */
    @Test
    void the_devices_are_taken_in_turn_so_every_one_comes_round() {
        try (OutboxFixture f = OutboxFixture.at(dir.resolve("outbox.db"))) {
            f.backlog("M-", 300, 6_000, CommandState.ACCEPTED);
            try (var h = OutboxDatabase.open(f.outbox().file()).open()) {
                h.execute("UPDATE commands SET receipt_published = 0");
            }
            f.finalRow("zz-last", "Z-1", CommandState.ACCEPTED);
            Set<String> seen = new HashSet<>();
            int turns = 0;
            while (!seen.contains("zz-last")) {
                List<CommandRecord> turn = f.outbox().unpublishedFinals(1000);
                assertThat(turn).hasSizeLessThanOrEqualTo(1000);
                seen.addAll(turn.stream().map(CommandRecord::clientId).collect(Collectors.toSet()));
                assertThat(++turns)
                        .as("1,000 / 301 devices: 3 receipts of each in one turn")
                        .isEqualTo(1);
            }
            assertThat(seen).hasSize(301);
        }
    }

    @Test
    void a_device_with_no_command_left_is_forgotten_after_the_device_retention_and_no_other() {
        try (OutboxFixture f = OutboxFixture.at(dir.resolve("outbox.db"))) {
            Outbox outbox = f.outbox();
            f.finalRow("dev-gone", "G-1", CommandState.ACCEPTED);
            f.finalRow("dev-kept", "K-1", CommandState.ACCEPTED);
            outbox.markPublished(
                    List.of(outbox.find("dev-gone", "G-1").orElseThrow().id()));
            outbox.unpublishedFinals(1); // commits the mark
            Instant later = Instant.now().plus(Duration.ofDays(1));
            assertThat(outbox.purgeFinalBefore(later, 10)).isEqualTo(2);
            assertThat(outbox.forgetDevicesBefore(Instant.now().minus(Duration.ofDays(1)), 100))
                    .as("heard of lately: kept")
                    .isZero();
            f.finalRow("dev-kept", "K-2", CommandState.ACCEPTED);
            f.pending("dev-open", "P-", 1);
            assertThat(outbox.forgetDevicesBefore(later, 100))
                    .as("dev-gone alone: the others hold commands")
                    .isEqualTo(1);
            assertThat(outbox.reads().devices())
                    .extracting(DeviceRow::clientId)
                    .containsExactlyInAnyOrder("dev-kept", "dev-open");
            StoreResult again = outbox.store(List.of(OutboxFixture.command("dev-gone", "G-2", 0, Instant.now())))
                    .get(0);
            assertThat(((StoreResult.Stored) again).record().sequence())
                    .as("a forgotten device starts again at 1")
                    .isEqualTo(1);
        }
    }
}
