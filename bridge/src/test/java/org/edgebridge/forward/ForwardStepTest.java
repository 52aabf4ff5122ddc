package org.edgebridge.forward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.edgebridge.central.Faults;
import org.edgebridge.central.Inbox;
import org.edgebridge.outbox.CommandState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One forwarder step at a time against the reference central on port 0 and a real outbox: a reply with receipts
 * (accepted, duplicate, rejected, retry_later), what the outbox holds after it, which receipts the devices get,
 * and what the forwarder waits for next, on a clock the test moves. The HTTP statuses are in
 * {@link ForwardStepStatusTest}, the poison's isolation in {@link ForwardStepPoisonTest}, the guards in
 * {@link ForwardStepGuardsTest}.
 */
class ForwardStepTest {
    @TempDir
    Path dir;

    @Test
    void an_accepted_batch_is_committed_and_published_and_then_the_step_is_idle_until_woken() {
        try (ForwarderRig rig = new ForwarderRig(dir)) {
            rig.store("a", "A-1", "");
            rig.store("a", "A-2", "");
            rig.store("b", "B-1", "");
            assertThat(rig.step()).isEqualTo(new StepResult.Sent(3, Duration.ZERO));
            for (String id : List.of("A-1", "A-2")) {
                assertThat(rig.record("a", id).state()).isEqualTo(CommandState.ACCEPTED);
                assertThat(rig.finalsOf(id)).containsExactly("accepted");
            }
            assertThat(rig.central.inbox().entries())
                    .extracting(Inbox.Entry::eventId)
                    .containsExactly("A-1", "A-2", "B-1");
            StepResult idle = rig.step();
            assertThat(idle).isEqualTo(new StepResult.Idle(ForwarderState.IDLE, ForwarderWaits.IDLE_POLL));
            assertThat(idle.endsOnWake()).isTrue();
            ForwarderStatus status = rig.status();
            assertThat(status.requests()).isEqualTo(1);
            assertThat(status.eventsSent()).isEqualTo(3);
            assertThat(status.finals()).isEqualTo(3);
            assertThat(status.lastSuccessAt()).hasValue(rig.clock.instant());
        }
    }

    @Test
    void a_reply_lost_after_central_applied_it_is_retried_after_the_backoff_and_ends_as_duplicate() {
        try (ForwarderRig rig = new ForwarderRig(dir)) {
            rig.central.faults(Faults.of("lose_reply", 1));
            rig.store("a", "LOST-1", "");
            rig.step();
            assertThat(rig.record("a", "LOST-1").state()).isEqualTo(CommandState.PENDING);
            assertThat(rig.status().lastError())
                    .hasValueSatisfying(e -> assertThat(e).startsWith("HTTP 500"));
            assertThat(rig.step())
                    .isInstanceOfSatisfying(
                            StepResult.Held.class, h -> assertThat(h.state()).isEqualTo(ForwarderState.BACKING_OFF));
            rig.waitOutNextAttempt();
            rig.step();
            assertThat(rig.finalsOf("LOST-1")).containsExactly("duplicate");
            assertThat(rig.lastReceiptOf("LOST-1")
                            .path("result")
                            .path("inboxId")
                            .asLong())
                    .isEqualTo(rig.central.inbox().entries().get(0).inboxId());
            assertThat(rig.status().consecutiveFailures()).isZero();
        }
    }

    @Test
    void a_rejected_receipt_is_final_with_centrals_code() {
        try (ForwarderRig rig = new ForwarderRig(dir)) {
            rig.central.faults(Faults.of("reject", 1));
            rig.store("a", "REJ-1", "");
            rig.step();
            assertThat(rig.record("a", "REJ-1").state()).isEqualTo(CommandState.REJECTED);
            assertThat(rig.record("a", "REJ-1").code()).isEqualTo("sim_rejected");
            assertThat(rig.lastReceiptOf("REJ-1").path("code").asText()).isEqualTo("sim_rejected");
            assertThat(rig.central.inbox().size()).isZero();
        }
    }

    @Test
    void a_201_or_202_with_receipts_is_success() {
        try (ForwarderRig rig = new ForwarderRig(dir)) {
            for (int status : List.of(201, 202)) {
                rig.central.faults(new Faults("answer_status", status, null, false, 0, 0, 1));
                rig.store("a", "C" + status, "");
                rig.step();
                assertThat(rig.finalsOf("C" + status)).containsExactly("accepted");
            }
            assertThat(rig.status().pauseReason()).isEmpty();
            assertThat(rig.status().consecutiveFailures()).isZero();
        }
    }

    @Test
    void a_per_event_retry_later_waits_its_retry_after_ms_and_is_sent_again() {
        try (ForwarderRig rig = new ForwarderRig(dir)) {
            rig.central.faults(new Faults("retry_later", 0, null, false, 2_000, 0, 1));
            rig.store("a", "LATER-1", "");
            rig.step();
            assertThat(rig.record("a", "LATER-1").notBefore())
                    .isEqualTo(rig.clock.instant().plusSeconds(2));
            assertThat(rig.step()).as("not due yet").isInstanceOf(StepResult.Idle.class);
            rig.clock.advance(Duration.ofMillis(2_001));
            rig.step();
            assertThat(rig.record("a", "LATER-1")).satisfies(r -> {
                assertThat(r.state()).isEqualTo(CommandState.ACCEPTED);
                assertThat(r.retryLaters())
                        .as("a retry_later to every event of the reply counts nothing")
                        .isZero();
                assertThat(r.attempts()).isEqualTo(2);
            });
            assertThat(rig.finalsOf("LATER-1")).containsExactly("accepted");
        }
    }

    @Test
    void a_per_event_retry_after_near_long_max_is_clamped_to_max_retry_after() {
        try (ForwarderRig rig = new ForwarderRig(dir, "forwarder.maxRetryAfter=1s")) {
            rig.central.faults(new Faults("retry_later", 0, null, false, Long.MAX_VALUE - 1, 0, 1));
            rig.store("a", "RA-1", "");
            rig.step();
            assertThat(rig.record("a", "RA-1").notBefore())
                    .isEqualTo(rig.clock.instant().plusSeconds(1));
            rig.clock.advance(Duration.ofMillis(1_001));
            rig.step();
            assertThat(rig.finalsOf("RA-1")).containsExactly("accepted");
            assertThat(rig.status().unsettledEvents()).isZero();
        }
    }

    @Test
    void retry_later_to_everything_parks_nothing_however_long_it_lasts() {
        try (ForwarderRig rig = new ForwarderRig(dir)) {
            rig.central.faults(new Faults("retry_later", 0, null, false, 10, 0, -1));
            rig.store("a", "PARK-1", "");
            for (int i = 0; i < 20; i++) {
                rig.step();
                rig.clock.advance(Duration.ofSeconds(2));
            }
            assertThat(rig.central.requestLog()).hasSizeGreaterThan(5);
            assertThat(rig.record("a", "PARK-1").state())
                    .as("central shed load; it answered no event")
                    .isEqualTo(CommandState.PENDING);
            assertThat(rig.record("a", "PARK-1").retryLaters()).isZero();
            assertThat(rig.status().parked()).isZero();
        }
    }
}
