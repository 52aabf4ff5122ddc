package org.edgebridge.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.edgebridge.TestClock;
import org.edgebridge.outbox.ClaimedEvent;
import org.edgebridge.outbox.CommandRecord;
import org.edgebridge.outbox.CommandState;
import org.edgebridge.outbox.HistoryEntry;
import org.edgebridge.outbox.Outbox;
import org.edgebridge.outbox.OutboxFixture;
import org.edgebridge.outbox.ParkedDesk;
import org.edgebridge.outbox.SentRequest;
import org.edgebridge.outbox.Settlement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code outbox.leanHistory} changes what is written, not what an admin reads: the same command life, played by the
 * real outbox on a real SQLite file with the switch off and on, answers {@code GET /api/outbox/{deviceId}/{commandId}}
 * (the row, its {@code history} and its {@code timeline}, as {@link OutboxApi#one} builds it) with the same JSON; the
 * switch on writes fewer history lines.
 */
class LeanHistoryTimelineTest {
    private static final Instant T0 = Instant.parse("2026-12-06T05:00:00Z");

    @TempDir
    Path dir;

    /** One outbox file played on its own clock; reopened with another switch when a life says so. */
    private final class Site implements AutoCloseable {
        final Path file;
        final TestClock clock = new TestClock(T0);
        Outbox outbox;

        Site(String name, boolean lean) {
            this.file = dir.resolve(name + ".db");
            this.outbox = Outbox.open(file, clock, lean);
        }

        void reopen(boolean lean) {
            outbox.close();
            outbox = Outbox.open(file, clock, lean);
        }

        void advance(long millis) {
            clock.advance(Duration.ofMillis(millis));
        }

        ClaimedEvent claimOne(String batchId) {
            List<ClaimedEvent> claimed =
                    outbox.claim(10, Integer.MAX_VALUE, OutboxFixture.ROUGH_SIZE, Long.MAX_VALUE, batchId);
            assertThat(claimed).hasSize(1);
            return claimed.get(0);
        }

        List<CommandRecord> settle(String batchId, int http, long took, Settlement s) {
            return outbox.settle(new SentRequest(batchId, http, took), List.of(s), 50)
                    .finals();
        }

        void publish(List<CommandRecord> finals) {
            outbox.markPublished(finals.stream().map(CommandRecord::id).toList());
            outbox.unpublishedFinals(10); // commits the marks that wait
        }

        /** What {@code GET /api/outbox/{deviceId}/{commandId}} answers, as JSON text. */
        String answer(String device, String commandId) throws JsonProcessingException {
            CommandRecord r = outbox.find(device, commandId).orElseThrow();
            List<HistoryEntry> history = outbox.reads().history(r.id());
            List<TimelineEntry> timeline = CommandTimeline.of(r, outbox.reads().life(r.id()), history);
            return AdminServer.JSON.writeValueAsString(CommandView.of(r, history, timeline));
        }

        long historyLines() throws SQLException {
            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM command_history")) {
                rs.next();
                return rs.getLong(1);
            }
        }

        @Override
        public void close() {
            outbox.close();
        }
    }

    /** A command's life, played on a site; {@code lean} is the switch the site was opened with. */
    private interface Life {
        void play(Site site, boolean lean) throws Exception;
    }

    /** Plays the life with the switch off and on. @return the history lines written off and on */
    private long[] sameAnswers(String device, String commandId, Life life) throws Exception {
        Map<Boolean, String> answers = new LinkedHashMap<>();
        long[] lines = new long[2];
        for (boolean lean : new boolean[] {false, true}) {
            try (Site site = new Site(commandId + "-" + lean, lean)) {
                site.outbox.store(List.of(OutboxFixture.command(device, commandId, 0, T0.minusMillis(3))));
                life.play(site, lean);
                answers.put(lean, site.answer(device, commandId));
                lines[lean ? 1 : 0] = site.historyLines();
            }
        }
        assertThat(answers.get(true))
                .as("the answer with outbox.leanHistory on, against the one with it off")
                .isEqualTo(answers.get(false));
        assertThat(answers.get(false)).contains("\"history\":[{").contains("\"timeline\":[{");
        return lines;
    }

    @Test
    void the_common_path_a_first_attempt_made_final_reads_the_same_with_no_history_line_written() throws Exception {
        long[] lines = sameAnswers("dev-1", "C-1", (site, lean) -> {
            site.advance(1_000);
            ClaimedEvent e = site.claimOne("req-1");
            site.advance(12);
            List<CommandRecord> finals = site.settle(
                    "req-1",
                    200,
                    12,
                    new Settlement.Final(e.id(), CommandState.ACCEPTED, "ok", "applied", "{\"applied\":true}"));
            site.advance(2);
            site.publish(finals);
            site.outbox.markReceiptAcked("dev-1", "C-1", site.clock.instant().plusMillis(3));
            site.outbox.unpublishedFinals(10);
        });
        assertThat(lines).as("history lines off, on").containsExactly(2, 0);
    }

    @Test
    void a_command_released_then_told_to_retry_later_then_final_folds_its_attempts_alike() throws Exception {
        long[] lines = sameAnswers("dev-2", "C-2", (site, lean) -> {
            site.advance(1_000);
            ClaimedEvent e = site.claimOne("req-1");
            site.advance(30_000);
            site.settle("req-1", 0, 30_000, new Settlement.Release(e.id(), "timeout after 30000 ms"));
            site.advance(5_000);
            site.claimOne("req-2");
            site.advance(40);
            site.settle(
                    "req-2", 200, 40, new Settlement.RetryLater(e.id(), site.clock.instant(), "central: busy", true));
            site.advance(5_000);
            site.claimOne("req-3");
            site.advance(12);
            site.publish(site.settle(
                    "req-3", 200, 12, new Settlement.Final(e.id(), CommandState.DUPLICATE, null, null, null)));
        });
        assertThat(lines)
                .as("off: attempt, released, retry_later, receipt; on: the same but the receipt")
                .containsExactly(4, 3);
    }

    @Test
    void an_event_made_final_by_a_probe_keeps_the_probes_request_on_its_receipt_line() throws Exception {
        // a probe sends claimed events under a request id of its own: the receipt's request is not the claim's
        sameAnswers("dev-3", "C-3", (site, lean) -> {
            ClaimedEvent e = site.claimOne("claim-1");
            site.advance(7);
            site.settle(
                    "probe-1",
                    200,
                    7,
                    new Settlement.Final(e.id(), CommandState.REJECTED, "bad", "no such order", null));
        });
    }

    @Test
    void a_command_parked_by_an_admin_while_pending_then_requeued_then_sent_keeps_the_order_of_its_life()
            throws Exception {
        sameAnswers("dev-4", "C-4", (site, lean) -> {
            site.outbox.pendingDesk().park("dev-4", "C-4", "held by an admin");
            site.advance(60_000);
            CommandRecord r = site.outbox.find("dev-4", "C-4").orElseThrow();
            site.outbox.parked().decide(List.of(r.id()), ParkedDesk.Decision.REQUEUE, "by an admin");
            // the claim in the same millisecond as the requeue: the requeue still comes first
            ClaimedEvent e = site.claimOne("req-1");
            site.advance(9);
            site.settle("req-1", 500, 9, new Settlement.FailedAlone(e.id(), site.clock.instant(), "central: 500"));
            site.claimOne("req-2");
            site.advance(9);
            site.settle("req-2", 200, 9, new Settlement.Final(e.id(), CommandState.ACCEPTED, null, null, null));
        });
    }

    @Test
    void a_command_parked_by_the_settle_and_rejected_by_an_admin_shows_its_first_attempt_before_the_park()
            throws Exception {
        long[] lines = sameAnswers("dev-5", "C-5", (site, lean) -> {
            ClaimedEvent e = site.claimOne("req-9");
            // the park in the same millisecond as the claim: it still comes after the attempt
            site.settle("req-9", 500, 250, new Settlement.Park(e.id(), "ingest_server_error", "failed 3 times"));
            site.advance(600_000);
            site.outbox.parked().decide(List.of(e.id()), ParkedDesk.Decision.REJECT, "by an admin");
        });
        assertThat(lines)
                .as("off: attempt, parked, rejected_by_admin; on: no attempt line")
                .containsExactly(3, 2);
    }

    @Test
    void a_command_whose_first_attempt_was_lean_and_the_rest_not_reads_as_if_the_switch_was_never_on()
            throws Exception {
        sameAnswers("dev-6", "C-6", (site, lean) -> {
            ClaimedEvent e = site.claimOne("req-1");
            site.advance(100);
            site.settle("req-1", 503, 100, new Settlement.Release(e.id(), "central answered 503"));
            site.reopen(false); // the switch turned off again (a restart)
            site.advance(1_000);
            site.claimOne("req-2");
            site.advance(10);
            site.settle("req-2", 200, 10, new Settlement.Final(e.id(), CommandState.ACCEPTED, null, null, null));
        });
    }
}
