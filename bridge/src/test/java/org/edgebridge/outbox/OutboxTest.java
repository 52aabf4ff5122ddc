package org.edgebridge.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.edgebridge.TestClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The outbox against a real SQLite file. */
class OutboxTest {
    @TempDir
    Path dir;

    TestClock clock = new TestClock(Instant.parse("2026-11-29T06:00:00Z"));
    Outbox outbox;

    @BeforeEach
    void open() {
        outbox = Outbox.open(dir.resolve("outbox.db"), clock);
    }

    private static NewCommand command(String device, String id, String body) {
        byte[] payload = ("{\"commandId\":\"" + id + "\"" + body + "}").getBytes(StandardCharsets.UTF_8);
        return new NewCommand(
                device,
                id,
                "devices/" + device + "/commands/t",
                "t",
                payload,
                org.edgebridge.intake.TestHashes.sha256(payload),
                Instant.parse("2026-11-29T06:00:00Z"));
    }

    @Test
    void sequences_are_gapless_per_device_and_a_known_command_is_not_stored_twice() {
        List<StoreResult> results = outbox.store(List.of(
                command("a", "1", ""),
                command("b", "1", ""),
                command("a", "2", ""),
                command("a", "1", ""),
                command("a", "2", ",\"x\":1")));
        assertThat(results.get(0))
                .isInstanceOfSatisfying(
                        StoreResult.Stored.class,
                        s -> assertThat(s.record().sequence()).isEqualTo(1));
        assertThat(results.get(1))
                .isInstanceOfSatisfying(
                        StoreResult.Stored.class,
                        s -> assertThat(s.record().sequence()).isEqualTo(1));
        assertThat(results.get(2))
                .isInstanceOfSatisfying(
                        StoreResult.Stored.class,
                        s -> assertThat(s.record().sequence()).isEqualTo(2));
        assertThat(results.get(3)).isInstanceOf(StoreResult.AlreadyStored.class);
        assertThat(results.get(4))
                .isInstanceOfSatisfying(
                        StoreResult.IdReused.class,
                        r -> assertThat(r.original().sequence()).isEqualTo(2));
        assertThat(outbox.reads().counts().count(CommandState.PENDING)).isEqualTo(3);
    }

    @Test
    void a_device_waiting_on_a_retry_later_holds_back_only_its_own_later_events() {
        outbox.store(List.of(
                command("a", "a1", ""), command("a", "a2", ""), command("b", "b1", ""), command("b", "b2", "")));
        List<ClaimedEvent> first = outbox.claim(10, 1 << 20, OutboxFixture.ROUGH_SIZE, Long.MAX_VALUE, "batch-1");
        assertThat(first).extracting(ClaimedEvent::commandId).containsExactly("a1", "a2", "b1", "b2");
        ClaimedEvent a1 = first.get(0);
        outbox.settle(
                "batch-1",
                List.of(
                        new Settlement.RetryLater(
                                a1.id(), clock.instant().plusSeconds(10), "central: retry_later", true),
                        new Settlement.Release(first.get(1).id(), "not answered"),
                        new Settlement.Final(first.get(2).id(), CommandState.ACCEPTED, null, null, "{\"ok\":1}"),
                        new Settlement.Release(first.get(3).id(), "not answered")),
                50);
        List<ClaimedEvent> second = outbox.claim(10, 1 << 20, OutboxFixture.ROUGH_SIZE, Long.MAX_VALUE, "batch-2");
        assertThat(second)
                .extracting(ClaimedEvent::commandId)
                .as("a1 not due, so a2 waits too")
                .containsExactly("b2");
        assertThat(second.get(0).attempt()).isEqualTo(2);
        outbox.settle("batch-2", List.of(new Settlement.Release(second.get(0).id(), "x")), 50);
        clock.advance(Duration.ofSeconds(11));
        assertThat(outbox.claim(10, 1 << 20, OutboxFixture.ROUGH_SIZE, Long.MAX_VALUE, "batch-3"))
                .extracting(ClaimedEvent::commandId)
                .containsExactly("a1", "a2", "b2");
    }

    @Test
    void claims_respect_the_byte_budget_and_the_stored_high_water_mark() {
        outbox.store(List.of(
                command("a", "1", ",\"pad\":\"" + "x".repeat(600) + "\""),
                command("a", "2", ""),
                command("a", "3", "")));
        assertThat(outbox.claim(10, 1000, OutboxFixture.ROUGH_SIZE, Long.MAX_VALUE, "b"))
                .extracting(ClaimedEvent::commandId)
                .containsExactly("1");
        assertThat(outbox.claim(10, 1 << 20, OutboxFixture.ROUGH_SIZE, 0, "c")).isEmpty();
    }

    @Test
    void retry_later_answers_park_an_event_at_max_attempts_and_transport_failures_never_do() {
        outbox.store(List.of(command("a", "1", "")));
        for (int i = 0; i < 5; i++) {
            ClaimedEvent e = outbox.claim(10, 1 << 20, OutboxFixture.ROUGH_SIZE, Long.MAX_VALUE, "t" + i)
                    .get(0);
            outbox.settle("t" + i, List.of(new Settlement.Release(e.id(), "HTTP 503")), 3);
        }
        assertThat(outbox.reads().counts().count(CommandState.PENDING)).isEqualTo(1);
        for (int i = 0; i < 3; i++) {
            ClaimedEvent e = outbox.claim(10, 1 << 20, OutboxFixture.ROUGH_SIZE, Long.MAX_VALUE, "r" + i)
                    .get(0);
            outbox.settle(
                    "r" + i,
                    List.of(new Settlement.RetryLater(e.id(), clock.instant(), "central: retry_later", true)),
                    3);
        }
        assertThat(outbox.reads().counts().count(CommandState.PARKED)).isEqualTo(1);
        assertThat(outbox.claim(10, 1 << 20, OutboxFixture.ROUGH_SIZE, Long.MAX_VALUE, "x"))
                .isEmpty();
    }

    @Test
    void claims_left_by_a_crash_return_to_pending_and_unpublished_finals_are_found() {
        outbox.store(List.of(command("a", "1", ""), command("a", "2", "")));
        List<ClaimedEvent> claimed = outbox.claim(10, 1 << 20, OutboxFixture.ROUGH_SIZE, Long.MAX_VALUE, "b");
        outbox.settle(
                "b",
                List.of(new Settlement.Final(claimed.get(0).id(), CommandState.DUPLICATE, null, null, "{\"r\":1}")),
                50);
        Outbox reopened = Outbox.open(dir.resolve("outbox.db"), clock);
        assertThat(reopened.releaseAbandonedClaims()).isEqualTo(1);
        assertThat(reopened.reads().counts().count(CommandState.PENDING)).isEqualTo(1);
        List<CommandRecord> unpublished = reopened.unpublishedFinals(10);
        assertThat(unpublished).extracting(CommandRecord::commandId).containsExactly("1");
        assertThat(unpublished.get(0).resultJson()).isEqualTo("{\"r\":1}");
        reopened.markPublished(List.of(unpublished.get(0).id()));
        assertThat(reopened.unpublishedFinals(10)).isEmpty();
    }

    @Test
    void published_marks_ride_the_next_write_and_a_close_commits_those_left() throws Exception {
        outbox.store(List.of(command("a", "1", ""), command("a", "2", ""), command("b", "1", "")));
        List<ClaimedEvent> claimed = outbox.claim(10, 1 << 20, OutboxFixture.ROUGH_SIZE, Long.MAX_VALUE, "batch-1");
        ForwarderOutbox.SettleResult settled = outbox.settle(
                "batch-1",
                List.of(
                        new Settlement.Final(claimed.get(0).id(), CommandState.ACCEPTED, null, null, null),
                        new Settlement.Final(claimed.get(2).id(), CommandState.ACCEPTED, null, null, null),
                        new Settlement.Release(claimed.get(1).id(), "not answered")),
                50);
        outbox.markPublished(settled.finals().stream().map(CommandRecord::id).toList());
        assertThat(publishedInFile()).as("not a transaction of its own").isZero();

        outbox.claim(10, 1 << 20, OutboxFixture.ROUGH_SIZE, Long.MAX_VALUE, "batch-2");
        assertThat(publishedInFile()).as("committed with the next claim").isEqualTo(2);

        List<ClaimedEvent> again = outbox.claim(10, 1 << 20, OutboxFixture.ROUGH_SIZE, Long.MAX_VALUE, "batch-3");
        assertThat(again).isEmpty();
        outbox.store(List.of(command("c", "1", "")));
        List<ClaimedEvent> c = outbox.claim(10, 1 << 20, OutboxFixture.ROUGH_SIZE, Long.MAX_VALUE, "batch-4");
        outbox.settle(
                "batch-4", List.of(new Settlement.Final(c.get(0).id(), CommandState.ACCEPTED, null, null, null)), 50);
        outbox.markPublished(List.of(c.get(0).id()));
        assertThat(outbox.unpublishedFinals(10))
                .as("a receipt handed out a moment ago is not unpublished")
                .isEmpty();

        outbox.store(List.of(command("d", "1", "")));
        List<ClaimedEvent> d = outbox.claim(10, 1 << 20, OutboxFixture.ROUGH_SIZE, Long.MAX_VALUE, "batch-5");
        outbox.settle(
                "batch-5", List.of(new Settlement.Final(d.get(0).id(), CommandState.ACCEPTED, null, null, null)), 50);
        outbox.markPublished(List.of(d.get(0).id()));
        outbox.close();
        assertThat(publishedInFile()).as("the close commits the marks left").isEqualTo(4);
        outbox = Outbox.open(dir.resolve("outbox.db"), clock);
        assertThat(outbox.unpublishedFinals(10)).isEmpty();
    }

    @Test
    void a_crash_before_the_next_write_loses_only_the_marks_and_those_receipts_are_found_again() {
        outbox.store(List.of(command("a", "1", "")));
        List<ClaimedEvent> claimed = outbox.claim(10, 1 << 20, OutboxFixture.ROUGH_SIZE, Long.MAX_VALUE, "batch-1");
        ForwarderOutbox.SettleResult settled = outbox.settle(
                "batch-1",
                List.of(new Settlement.Final(claimed.get(0).id(), CommandState.ACCEPTED, null, null, "{\"r\":1}")),
                50);
        outbox.markPublished(List.of(settled.finals().get(0).id()));
        // the process dies here: no close, no further write; a new process opens the same file
        Outbox afterCrash = Outbox.open(dir.resolve("outbox.db"), clock);
        assertThat(afterCrash.unpublishedFinals(10))
                .as("published again at start, flagged replayed")
                .extracting(CommandRecord::commandId)
                .containsExactly("1");
        assertThat(afterCrash.reads().counts().count(CommandState.ACCEPTED))
                .as("the final itself was committed")
                .isEqualTo(1);
        afterCrash.close();
    }

    private long publishedInFile() throws java.sql.SQLException {
        try (var c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("outbox.db"));
                var rs =
                        c.createStatement().executeQuery("SELECT COUNT(*) FROM commands WHERE receipt_published = 1")) {
            return rs.getLong(1);
        }
    }

    @Test
    void row_ids_are_never_reused_after_retention_purged_every_row() {
        StoreResult.Stored first = (StoreResult.Stored)
                outbox.store(List.of(command("a", "1", ""))).get(0);
        List<ClaimedEvent> claimed = outbox.claim(10, 1 << 20, OutboxFixture.ROUGH_SIZE, Long.MAX_VALUE, "batch-1");
        outbox.settle(
                "batch-1",
                List.of(new Settlement.Final(claimed.get(0).id(), CommandState.ACCEPTED, null, null, null)),
                50);
        clock.advance(Duration.ofDays(8));
        assertThat(outbox.purgeFinalBefore(clock.instant().minus(Duration.ofDays(7)), 100))
                .isEqualTo(1);
        StoreResult.Stored next = (StoreResult.Stored)
                outbox.store(List.of(command("a", "2", ""))).get(0);
        assertThat(next.record().id())
                .as("an id once handed out (and reported stored) is never handed out again")
                .isGreaterThan(first.record().id());
    }
}
