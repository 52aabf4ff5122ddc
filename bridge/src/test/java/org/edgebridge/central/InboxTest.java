package org.edgebridge.central;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The reference central keeps order per (edge, device) and deduplicates per (device, event), whichever edge sends. */
class InboxTest {
    private final Inbox inbox = new Inbox(Clock.systemUTC());

    private Inbox.Answer apply(String edge, String event, long sequence) {
        return inbox.apply(edge, "dev-1", event, sequence, "sha-" + event, "{\"commandId\":\"" + event + "\"}");
    }

    @Test
    void a_device_that_moves_to_a_second_box_starts_a_new_numbering_there_without_an_ordering_violation() {
        apply("box-a", "c1", 1);
        apply("box-a", "c2", 2);
        apply("box-a", "c3", 3);
        // the device resends c3 (no final receipt yet) to box B, which numbers it 1, then sends c4 as 2
        assertThat(apply("box-b", "c3", 1).status()).isEqualTo("duplicate");
        assertThat(apply("box-b", "c4", 2).status()).isEqualTo("accepted");

        Map<String, Long> stats = inbox.stats();
        assertThat(stats)
                .containsEntry("applied", 4L)
                .containsEntry("duplicates", 1L)
                .containsEntry("orderingViolations", 0L)
                .containsEntry("sequenceGaps", 0L)
                .containsEntry("sequenceConflicts", 0L);
        assertThat(inbox.entries()).extracting(Inbox.Entry::edgeId).containsExactly("box-a", "box-a", "box-a", "box-b");
    }

    @Test
    void a_box_that_restarts_and_forwards_what_the_other_box_applied_gets_duplicate_and_keeps_its_own_order() {
        apply("box-a", "c1", 1);
        apply("box-b", "c2", 1); // A died holding c2 (its 2) and c3 (its 3); the device resent both to B
        apply("box-b", "c3", 2);
        assertThat(apply("box-a", "c2", 2).status()).isEqualTo("duplicate");
        assertThat(apply("box-a", "c3", 3).status()).isEqualTo("duplicate");
        apply("box-a", "c4", 4);

        assertThat(inbox.stats())
                .containsEntry("orderingViolations", 0L)
                .containsEntry("sequenceGaps", 0L)
                .containsEntry("sequenceConflicts", 0L);
        assertThat(inbox.answersByEdge())
                .isEqualTo(Map.of("box-a", Map.of("accepted", 2L, "duplicate", 2L), "box-b", Map.of("accepted", 2L)));
    }

    @Test
    void one_box_that_numbers_a_device_backwards_is_an_ordering_violation() {
        apply("box-a", "c1", 1);
        apply("box-a", "c2", 2);
        apply("box-b", "c3", 1);
        apply("box-a", "c4", 1);

        assertThat(inbox.stats()).containsEntry("orderingViolations", 1L);
    }

    @Test
    void one_box_that_sends_an_event_again_under_another_sequence_is_a_sequence_conflict_but_another_box_is_not() {
        apply("box-a", "c1", 1);
        apply("box-b", "c1", 1);
        assertThat(inbox.stats()).containsEntry("sequenceConflicts", 0L);
        apply("box-a", "c1", 2);
        assertThat(inbox.stats()).containsEntry("sequenceConflicts", 1L);
    }

    @Test
    void an_event_that_expired_is_refused_when_late_and_an_edges_report_of_one_explains_the_gap() {
        org.edgebridge.TestClock clock = new org.edgebridge.TestClock(java.time.Instant.parse("2026-12-02T06:00:00Z"));
        Inbox central = new Inbox(clock);
        java.time.Instant expiry = clock.instant().plusSeconds(10);
        assertThat(central.apply("box-a", "dev-1", "c1", 1, "sha-c1", "{}", expiry)
                        .status())
                .as("in time")
                .isEqualTo("accepted");
        clock.advance(java.time.Duration.ofSeconds(11));
        assertThat(central.apply("box-a", "dev-1", "c1", 1, "sha-c1", "{}", expiry)
                        .status())
                .as("applied before its expiry: a resend is a duplicate")
                .isEqualTo("duplicate");
        Inbox.Answer late = central.apply("box-a", "dev-1", "c2", 2, "sha-c2", "{}", expiry);
        assertThat(late.status()).isEqualTo("rejected");
        assertThat(late.code()).isEqualTo("expired");
        central.expired("box-a", "dev-1", "c3", 3); // expired at the edge, never sent
        assertThat(central.apply("box-a", "dev-1", "c4", 4, "sha-c4", "{}", null)
                        .status())
                .isEqualTo("accepted");
        assertThat(central.apply("box-a", "dev-1", "c3", 3, "sha-c3", "{}", null)
                        .code())
                .as("a copy of a reported one that comes anyway")
                .isEqualTo("expired");
        assertThat(central.stats())
                .containsEntry("sequenceGaps", 0L)
                .containsEntry("expiryReports", 1L)
                .containsEntry("refusedAsExpired", 2L)
                .containsEntry("applied", 2L);
    }
}
