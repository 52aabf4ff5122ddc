package org.edgebridge.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.edgebridge.TestClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23, point 8: in an outage every claim and every release wrote a history line, so history grew with the
 * outage's length (500 pending commands: 30,820 lines in 60 s at backoffMax=2s; about a million a day at the
 * defaults). Now a line that repeats one the command has is folded into it (times, first and last time): history is
 * bounded per command, whatever the outage lasts, and whatever HTTP status and duration each request had (issue 43:
 * they are the last time's, not a key of the fold). Against a real SQLite file; prints the figures docs/design.md gives.
 */
class HistoryBoundTest {
    private static final int COMMANDS = 500;
    private static final int ROUNDS = 200;

    @TempDir
    Path dir;

    @Test
    void an_outage_of_any_length_leaves_a_bounded_number_of_history_lines_per_command() throws Exception {
        TestClock clock = new TestClock(Instant.parse("2026-12-02T06:00:00Z"));
        Outbox outbox = Outbox.open(dir.resolve("outbox.db"), clock);
        try {
            List<NewCommand> commands = new ArrayList<>();
            for (int i = 1; i <= COMMANDS; i++) {
                byte[] payload = ("{\"commandId\":\"C-" + i + "\"}").getBytes(StandardCharsets.UTF_8);
                commands.add(new NewCommand(
                        "dev-" + (i % 50),
                        "C-" + i,
                        "devices/d/commands/t",
                        "t",
                        payload,
                        org.edgebridge.intake.TestHashes.sha256(payload),
                        clock.instant()));
            }
            outbox.store(commands);
            long[] afterFirst = new long[2];
            for (int round = 1; round <= ROUNDS; round++) {
                String batch = "b-" + round;
                List<ClaimedEvent> claimed =
                        outbox.claim(COMMANDS, 64 << 20, OutboxFixture.ROUGH_SIZE, Long.MAX_VALUE, batch);
                assertThat(claimed).hasSize(COMMANDS);
                List<Settlement> released = new ArrayList<>();
                // what an outage writes: a central that resets the connection, with its own words in the reason
                claimed.forEach(e -> released.add(
                        new Settlement.Release(e.id(), "central unreachable: connection reset (" + batch + ")")));
                // each round's request with an HTTP status and a duration of its own (the timeline's): still one line
                outbox.settle(new SentRequest(batch, 500 + round % 100, round), released, 50);
                clock.advance(Duration.ofSeconds(45));
                if (round == 1) {
                    afterFirst = rowsAndBytes(outbox.file());
                }
            }
            long[] end = rowsAndBytes(outbox.file());
            assertThat(end[0])
                    .as("history lines after %d rounds: the same as after one", ROUNDS)
                    .isEqualTo(afterFirst[0])
                    .isEqualTo(2L * COMMANDS);
            CommandRecord one = outbox.find("dev-1", "C-1").orElseThrow();
            List<HistoryEntry> history = outbox.reads().history(one.id());
            assertThat(history).extracting(HistoryEntry::kind).containsExactly("attempt", "released");
            assertThat(history).allSatisfy(h -> {
                assertThat(h.times()).isEqualTo(ROUNDS);
                assertThat(h.firstAt()).isEqualTo(Instant.parse("2026-12-02T06:00:00Z"));
                assertThat(h.at())
                        .isEqualTo(Instant.parse("2026-12-02T06:00:00Z").plusSeconds(45L * (ROUNDS - 1)));
            });
            assertThat(history.get(0).detail()).isEqualTo("attempt " + ROUNDS);
            assertThat(history.get(1).batchId()).isEqualTo("b-" + ROUNDS);
            assertThat(history.get(1).httpStatus())
                    .as("the last request's status")
                    .isEqualTo(500 + ROUNDS % 100);
            assertThat(history.get(1).tookMs()).isEqualTo((long) ROUNDS);
            System.out.printf(
                    "FIGURES history: %d pending commands, %d claim+release rounds: %d history lines, %d bytes of "
                            + "line content (%d lines, %d bytes after the first round)%n",
                    COMMANDS, ROUNDS, end[0], end[1], afterFirst[0], afterFirst[1]);
        } finally {
            outbox.close();
        }
    }

    /** The history's lines, and the bytes of their values (what SQLite stores for them, without page overhead). */
    private static long[] rowsAndBytes(Path file) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
                ResultSet rs = c.createStatement()
                        .executeQuery("SELECT COUNT(*), SUM(8 * 5 + LENGTH(kind) "
                                + "+ COALESCE(LENGTH(batch_id), 0) + COALESCE(LENGTH(status), 0) + COALESCE(LENGTH(code), 0) "
                                + "+ COALESCE(LENGTH(detail), 0)) FROM command_history")) {
            rs.next();
            return new long[] {rs.getLong(1), rs.getLong(2)};
        }
    }
}
