package org.edgebridge.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.edgebridge.outbox.ClaimedEvent;
import org.edgebridge.outbox.CommandRecord;
import org.edgebridge.outbox.CommandState;
import org.edgebridge.outbox.OutboxFixture;
import org.edgebridge.outbox.OutboxOnFile;
import org.edgebridge.outbox.SentRequest;
import org.edgebridge.outbox.Settlement;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * A command's timeline (docs/desk.md, "A command's timeline") from what the real outbox on a real SQLite file keeps:
 * its row and its history lines, written by the outbox's own store, claim, settle and mark.
 */
class CommandTimelineTest extends OutboxOnFile {
    private static final Instant T0 = Instant.parse("2026-12-06T05:00:00Z");

    CommandTimelineTest() {
        super(T0);
    }

    private List<TimelineEntry> timeline(String device, String commandId) {
        CommandRecord r = outbox.find(device, commandId).orElseThrow();
        return CommandTimeline.of(r, outbox.reads().life(r.id()), outbox.reads().history(r.id()));
    }

    private static void assertRequest(
            TimelineEntry e, @Nullable String requestId, @Nullable Integer httpStatus, @Nullable Long tookMs) {
        assertThat(e.requestId()).as("request of %s", e.what()).isEqualTo(requestId);
        assertThat(e.httpStatus()).as("HTTP status of %s", e.what()).isEqualTo(httpStatus);
        assertThat(e.tookMs()).as("duration of %s", e.what()).isEqualTo(tookMs);
    }

    private ClaimedEvent claim(String batchId) {
        List<ClaimedEvent> claimed =
                outbox.claim(10, Integer.MAX_VALUE, OutboxFixture.ROUGH_SIZE, Long.MAX_VALUE, batchId);
        assertThat(claimed).hasSize(1);
        return claimed.get(0);
    }

    @Test
    void a_command_sent_three_times_shows_each_outcome_the_final_with_its_request_and_the_published_receipt() {
        outbox.store(List.of(OutboxFixture.command("dev-1", "C-1", 0, T0.minusMillis(3))));
        clock.advance(Duration.ofSeconds(1));
        ClaimedEvent e = claim("req-1");
        clock.advance(Duration.ofMillis(30_000));
        outbox.settle(
                new SentRequest("req-1", 0, 30_000),
                List.of(new Settlement.Release(e.id(), "timeout after 30000 ms")),
                50);
        clock.advance(Duration.ofSeconds(5));
        claim("req-2");
        clock.advance(Duration.ofMillis(40));
        outbox.settle(
                new SentRequest("req-2", 200, 40),
                List.of(new Settlement.RetryLater(e.id(), clock.instant(), "central: busy", true)),
                50);
        clock.advance(Duration.ofSeconds(5));
        claim("req-3");
        clock.advance(Duration.ofMillis(12));
        List<CommandRecord> finals = outbox.settle(
                        new SentRequest("req-3", 200, 12),
                        List.of(new Settlement.Final(e.id(), CommandState.ACCEPTED, null, null, "{\"applied\":true}")),
                        50)
                .finals();
        clock.advance(Duration.ofMillis(2));
        outbox.markPublished(finals.stream().map(CommandRecord::id).toList());
        outbox.unpublishedFinals(10); // commits the marks that wait

        List<TimelineEntry> t = timeline("dev-1", "C-1");
        assertThat(t)
                .extracting(TimelineEntry::what)
                .containsExactly(
                        "received", "stored", "attempt", "released", "retry_later", "final", "receipt_published");
        assertThat(t.get(0).at()).isEqualTo(T0.minusMillis(3));
        assertThat(t.get(1).at())
                .as("stored: the writer's time in its transaction")
                .isEqualTo(T0);
        TimelineEntry attempts = t.get(2);
        assertThat(attempts.times()).isEqualTo(3);
        assertThat(attempts.at()).isEqualTo(T0.plusSeconds(1));
        assertThat(attempts.lastAt()).isEqualTo(T0.plusSeconds(1).plusMillis(30_000 + 5_000 + 40 + 5_000));
        assertThat(attempts.requestId()).isEqualTo("req-3");
        assertRequest(t.get(3), "req-1", 0, 30_000L); // no HTTP status: a timeout
        assertThat(t.get(3).detail()).contains("timeout after 30000 ms");
        assertRequest(t.get(4), "req-2", 200, 40L);
        TimelineEntry fin = t.get(5);
        assertThat(fin.status()).isEqualTo("accepted");
        assertRequest(fin, "req-3", 200, 12L);
        assertThat(t.get(6).at()).isEqualTo(fin.at().plusMillis(2));
    }

    @Test
    void a_parked_command_then_rejected_by_an_admin_shows_the_park_with_its_request_and_a_final_made_here() {
        outbox.store(List.of(OutboxFixture.command("dev-2", "P-1", 0, T0)));
        ClaimedEvent e = claim("req-9");
        clock.advance(Duration.ofMillis(250));
        outbox.settle(
                new SentRequest("req-9", 500, 250),
                List.of(new Settlement.Park(
                        e.id(), "ingest_server_error", "central failed on this event alone 3 times")),
                50);
        clock.advance(Duration.ofMinutes(10));
        outbox.parked().decide(List.of(e.id()), org.edgebridge.outbox.ParkedDesk.Decision.REJECT, "by an admin");

        List<TimelineEntry> t = timeline("dev-2", "P-1");
        assertThat(t)
                .extracting(TimelineEntry::what)
                .containsExactly("received", "stored", "attempt", "parked", "rejected_by_admin", "final");
        assertThat(t.get(3).code()).isEqualTo("ingest_server_error");
        assertRequest(t.get(3), "req-9", 500, 250L);
        TimelineEntry fin = t.get(5);
        assertThat(fin.code()).isEqualTo("rejected_by_admin");
        assertRequest(fin, null, null, null); // made final here, not by a request
        assertThat(fin.detail()).startsWith("final here: rejected (rejected_by_admin)");
    }

    @Test
    void the_devices_first_puback_of_its_final_receipt_ends_the_timeline_and_a_puback_of_an_open_command_is_not_kept() {
        outbox.store(
                List.of(OutboxFixture.command("dev-4", "A-1", 0, T0), OutboxFixture.command("dev-5", "O-1", 0, T0)));
        List<ClaimedEvent> claimed =
                outbox.claim(10, Integer.MAX_VALUE, OutboxFixture.ROUGH_SIZE, Long.MAX_VALUE, "req-7");
        ClaimedEvent a = claimed.stream()
                .filter(e -> e.commandId().equals("A-1"))
                .findFirst()
                .orElseThrow();
        outbox.settle(
                new SentRequest("req-7", 200, 3),
                List.of(new Settlement.Final(a.id(), CommandState.ACCEPTED, null, null, null)),
                50);
        outbox.markPublished(List.of(a.id()));
        outbox.markReceiptAcked("dev-4", "A-1", T0.plusMillis(20));
        outbox.markReceiptAcked("dev-4", "A-1", T0.plusMillis(900));
        outbox.markReceiptAcked("dev-5", "O-1", T0.plusMillis(20));
        outbox.unpublishedFinals(10); // commits the marks that wait

        List<TimelineEntry> t = timeline("dev-4", "A-1");
        assertThat(t).extracting(TimelineEntry::what).endsWith("final", "receipt_published", "receipt_acked");
        assertThat(t.get(t.size() - 1).at()).as("the first PUBACK").isEqualTo(T0.plusMillis(20));
        assertThat(timeline("dev-5", "O-1")).extracting(TimelineEntry::what).doesNotContain("receipt_acked");
        assertThat(outbox.writerFigures().receiptAcksUnrecorded()).isZero();
    }

    @Test
    void a_command_in_flight_shows_its_attempt_and_no_final() {
        outbox.store(List.of(OutboxFixture.command("dev-3", "F-1", 0, T0)));
        claim("req-5");
        List<TimelineEntry> t = timeline("dev-3", "F-1");
        assertThat(t).extracting(TimelineEntry::what).containsExactly("received", "stored", "attempt");
        assertThat(t.get(2).requestId()).isEqualTo("req-5");
        assertThat(t.get(2).times()).isNull();
    }

    @Test
    void the_file_name_keeps_only_safe_characters_of_the_ids() {
        outbox.store(List.of(OutboxFixture.command("dev \"x\"\r\n", "C/../1", 0, T0)));
        CommandRecord r = outbox.find("dev \"x\"\r\n", "C/../1").orElseThrow();
        assertThat(OutboxApi.timelineFileName("site-01", r)).isEqualTo("timeline-site-01-dev__x___-C_.._1.json");
    }
}
