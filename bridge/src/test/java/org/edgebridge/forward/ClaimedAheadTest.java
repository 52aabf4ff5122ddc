package org.edgebridge.forward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.edgebridge.central.Inbox;
import org.edgebridge.outbox.CommandState;
import org.edgebridge.outbox.HistoryEntry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The batch a settle claims for the next request ({@link ClaimedAhead}), one step at a time against the reference
 * central and a real outbox ({@link ForwarderRig}): when it is claimed, that the next step sends it, and that a
 * step held back or a stop puts it back to pending.
 */
class ClaimedAheadTest {
    @TempDir
    Path dir;

    @Test
    void the_settle_of_a_request_claims_the_next_batch_in_its_transaction_and_the_next_step_sends_that_batch() {
        try (ForwarderRig rig = new ForwarderRig(dir, "forwarder.maxEvents=1")) {
            Instant firstStep = rig.clock.instant();
            assertThat(sendFirstOfTwo(rig)).isEqualTo(new StepResult.Sent(1, Duration.ZERO));
            assertThat(rig.finalsOf("A-1")).containsExactly("accepted");
            assertThat(rig.record("a", "A-2").state())
                    .as("claimed by the settle that made A-1 final")
                    .isEqualTo(CommandState.INFLIGHT);
            rig.clock.advance(Duration.ofSeconds(5));
            assertThat(rig.step()).isEqualTo(new StepResult.Sent(1, Duration.ZERO));
            assertThat(rig.finalsOf("A-2")).containsExactly("accepted");
            List<HistoryEntry> history =
                    rig.outbox.reads().history(rig.record("a", "A-2").id());
            assertThat(history).extracting(HistoryEntry::kind).containsExactly("attempt", "receipt");
            assertThat(history.get(0).at())
                    .as("claimed at the first step, not at the second")
                    .isEqualTo(firstStep);
            assertThat(rig.central.inbox().entries())
                    .extracting(Inbox.Entry::eventId)
                    .containsExactly("A-1", "A-2");
            assertThat(rig.central.inbox().stats().get("orderingViolations")).isZero();
            assertThat(rig.step()).isEqualTo(new StepResult.Idle(ForwarderState.IDLE, ForwarderWaits.IDLE_POLL));
        }
    }

    @Test
    void a_settle_claims_nothing_ahead_when_the_next_requests_permit_is_further_away_than_10_ms() {
        try (ForwarderRig rig = new ForwarderRig(dir, "forwarder.maxEvents=1", "forwarder.requestsPerSecond=1")) {
            sendFirstOfTwo(rig);
            assertThat(rig.record("a", "A-2").state())
                    .as("left for the step that has the permit: its batch takes what came " + "meanwhile")
                    .isEqualTo(CommandState.PENDING);
        }
    }

    @Test
    void a_step_held_back_puts_the_batch_claimed_ahead_back_to_pending_and_it_goes_once_the_forwarder_resumes() {
        try (ForwarderRig rig = new ForwarderRig(dir, "forwarder.maxEvents=1")) {
            sendFirstOfTwo(rig);
            rig.forwarder.pause();
            assertThat(rig.step())
                    .isEqualTo(new StepResult.Idle(ForwarderState.PAUSED_BY_ADMIN, ForwarderWaits.IDLE_POLL));
            assertThat(rig.record("a", "A-2")).satisfies(r -> {
                assertThat(r.state()).isEqualTo(CommandState.PENDING);
                assertThat(r.lastError()).isEqualTo("not sent: the forwarder is paused_by_admin");
            });
            assertThat(rig.central.inbox().size()).isEqualTo(1);
            rig.forwarder.resume();
            rig.step();
            assertThat(rig.finalsOf("A-2")).containsExactly("accepted");
            assertThat(rig.outbox.reads().history(rig.record("a", "A-2").id()))
                    .extracting(HistoryEntry::kind, HistoryEntry::times)
                    .as("the second attempt folded into the first line")
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("attempt", 2),
                            org.assertj.core.groups.Tuple.tuple("released", 1),
                            org.assertj.core.groups.Tuple.tuple("receipt", 1));
        }
    }

    @Test
    void stopping_the_forwarder_puts_the_batch_claimed_ahead_back_to_pending() {
        try (ForwarderRig rig = new ForwarderRig(dir, "forwarder.maxEvents=1")) {
            sendFirstOfTwo(rig);
            assertThat(rig.record("a", "A-2").state()).isEqualTo(CommandState.INFLIGHT);
            rig.forwarder.close(Duration.ofSeconds(1));
            assertThat(rig.record("a", "A-2").state()).isEqualTo(CommandState.PENDING);
            assertThat(rig.record("a", "A-2").lastError()).isEqualTo("not sent: the bridge stopped");
        }
    }

    /** Stores of one device and runs one step: one event per request, so A-1 goes. */
    private static StepResult sendFirstOfTwo(ForwarderRig rig) {
        rig.store("a", "A-1", "");
        rig.store("a", "A-2", "");
        return rig.step();
    }
}
