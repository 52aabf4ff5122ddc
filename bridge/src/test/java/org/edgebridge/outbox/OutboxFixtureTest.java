package org.edgebridge.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.edgebridge.TestClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shared fixture builds what it says, through the real outbox. */
class OutboxFixtureTest {
    @TempDir
    Path dir;

    TestClock clock = new TestClock(Instant.parse("2026-11-29T06:00:00Z"));

    @Test
    void a_reason_of_any_length_from_central_is_kept_cut_in_the_row_and_its_history() {
        try (OutboxFixture f = OutboxFixture.at(dir.resolve("outbox.db"), clock)) {
            f.inflight("dev-1", "R-", 2);
            String huge = "HTTP 302 to https://x/" + "y".repeat(300_000);
            assertThat(f.outbox().releaseClaim("fixture-claim-1", huge)).isEqualTo(2);
            CommandRecord r = f.outbox().find("dev-1", "R-1").orElseThrow();
            assertThat(r.lastError())
                    .hasSizeLessThanOrEqualTo(Settler.MAX_REASON_CHARS + 1)
                    .startsWith("HTTP 302");
            assertThat(f.outbox().reads().history(r.id()))
                    .allSatisfy(h -> assertThat(h.detail() == null ? "" : h.detail())
                            .hasSizeLessThanOrEqualTo(Settler.MAX_REASON_CHARS + 1));
        }
    }

    @Test
    void builds_one_row_in_every_state_with_the_history_the_bridge_would_have_written() {
        try (OutboxFixture f = OutboxFixture.at(dir.resolve("outbox.db"), clock)) {
            f.inflight("dev", "I-", 2);
            f.parked("dev-p", "P-1", "poison");
            f.finalRow("dev-a", "A-1", CommandState.ACCEPTED);
            f.finalRow("dev-d", "D-1", CommandState.DUPLICATE);
            CommandRecord rejected = f.finalRow("dev-r", "R-1", CommandState.REJECTED);
            f.pending("dev", "N-", 3);
            Outbox outbox = f.outbox();
            assertThat(outbox.reads().counts().count(CommandState.INFLIGHT)).isEqualTo(2);
            assertThat(outbox.reads().counts().count(CommandState.PENDING)).isEqualTo(3);
            assertThat(outbox.reads().counts().count(CommandState.PARKED)).isEqualTo(1);
            assertThat(outbox.reads().counts().count(CommandState.ACCEPTED)).isEqualTo(1);
            assertThat(outbox.reads().counts().count(CommandState.DUPLICATE)).isEqualTo(1);
            assertThat(outbox.reads().counts().count(CommandState.REJECTED)).isEqualTo(1);
            assertThat(outbox.openCount()).isEqualTo(6);
            assertThat(rejected.code()).isEqualTo("fixture_rejected");
            assertThat(outbox.find("dev-p", "P-1").orElseThrow().code()).isEqualTo("poison");
            assertThat(outbox.reads().history(rejected.id()))
                    .extracting(HistoryEntry::kind)
                    .containsExactly("attempt", "receipt");
            assertThat(outbox.unpublishedFinals(10))
                    .extracting(CommandRecord::commandId)
                    .containsExactly("A-1", "D-1", "R-1");
            assertThat(outbox.find("dev", "N-3").orElseThrow().sequence()).isEqualTo(5);
        }
    }

    @Test
    void a_claimed_state_built_after_a_pending_row_fails_instead_of_claiming_that_row() {
        try (OutboxFixture f = OutboxFixture.at(dir.resolve("outbox.db"), clock)) {
            f.pending("dev-1", "N-", 1);
            assertThatThrownBy(() -> f.inflight("dev-2", "I-", 1)).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void old_final_rows_are_published_and_due_for_retention_and_a_backlog_numbers_each_device_on() {
        try (OutboxFixture f = OutboxFixture.at(dir.resolve("outbox.db"), clock)) {
            assertThat(f.oldFinalRows("old", 1_000, Duration.ofDays(8))).isEqualTo(1_000);
            assertThat(f.backlog("b-", 10, 1_000, CommandState.PENDING)).isEqualTo(1_000);
            assertThat(f.backlog("c-", 10, 20, CommandState.PENDING)).isEqualTo(20);
            Outbox outbox = f.outbox();
            assertThat(outbox.openCount()).isEqualTo(1_020);
            assertThat(outbox.unpublishedFinals(10)).isEmpty();
            assertThat(outbox.find("dev-3", "c-13").orElseThrow().sequence()).isEqualTo(102);
            assertThat(outbox.reads().devices())
                    .filteredOn(d -> d.clientId().equals("dev-3"))
                    .singleElement()
                    .satisfies(d -> assertThat(d.lastSequence()).isEqualTo(102));
            assertThat(outbox.purgeFinalBefore(clock.instant().minus(Duration.ofDays(7)), 5_000))
                    .isEqualTo(1_000);
            assertThat(outbox.reads().counts().count(CommandState.PENDING)).isEqualTo(1_020);
        }
        try (OutboxFixture again = OutboxFixture.at(dir.resolve("outbox.db"), clock)) {
            assertThat(again.outbox().openCount())
                    .as("what a bridge opening the file counts")
                    .isEqualTo(1_020);
        }
    }

    @Test
    void an_outbox_left_at_an_older_schema_migrates_to_the_newest() {
        Path file = OutboxFixture.atSchemaVersion(dir.resolve("outbox.db"), "2");
        try (OutboxFixture f = OutboxFixture.at(file, clock)) {
            assertThat(f.outbox().reads().schemaVersion()).isEqualTo("10");
            assertThat(f.pending("dev", "C-", 2))
                    .extracting(CommandRecord::sequence)
                    .containsExactly(1L, 2L);
        }
    }
}
