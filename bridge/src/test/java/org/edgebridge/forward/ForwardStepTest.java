package org.edgebridge.forward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.edgebridge.central.CentralSim;
import org.edgebridge.central.Faults;
import org.edgebridge.central.Inbox;
import org.edgebridge.outbox.CommandState;
import org.edgebridge.outbox.ParkedDesk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One forwarder step at a time against the reference central on port 0 and a real outbox: every reply of
 * docs/forwarding.md, what the outbox holds after it, which receipts the devices get, and what the forwarder waits
 * for next, on a clock the test moves.
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

    @Test
    void a_200_that_answers_no_event_is_a_failed_request_backed_off_and_counts_nothing_toward_parking() {
        try (ForwarderRig rig = new ForwarderRig(dir)) {
            rig.central.faults(Faults.of("omit_receipts", 1));
            rig.store("a", "MISS-1", "");
            rig.step();
            assertThat(rig.record("a", "MISS-1").state()).isEqualTo(CommandState.PENDING);
            assertThat(rig.status().consecutiveFailures()).isEqualTo(1);
            rig.clock.advance(Duration.ofSeconds(1));
            rig.step();
            assertThat(rig.finalsOf("MISS-1")).containsExactly("duplicate");
            assertThat(rig.record("a", "MISS-1").retryLaters()).isZero();
            assertThat(rig.central.inbox().entries())
                    .singleElement()
                    .satisfies(e -> assertThat(e.deliveries()).isEqualTo(2));
        }
    }

    @Test
    void a_413_to_one_event_while_central_takes_the_others_rejects_it_and_nothing_else() {
        try (ForwarderRig rig = new ForwarderRig(dir, 3_000)) {
            String pad = ",\"pad\":\"" + "p".repeat(700) + "\"";
            for (int i = 1; i <= 4; i++) {
                rig.store("a", "SPLIT-" + i, pad);
            }
            rig.store("h", "HUGE-1", ",\"pad\":\"" + "h".repeat(5_000) + "\"");
            runWithNeighbour(rig, () -> rig.record("h", "HUGE-1").state().isFinal(), 60);
            for (int i = 1; i <= 4; i++) {
                assertThat(rig.finalsOf("SPLIT-" + i)).containsExactly("accepted");
            }
            assertThat(rig.record("h", "HUGE-1").state()).isEqualTo(CommandState.REJECTED);
            assertThat(rig.record("h", "HUGE-1").code()).isEqualTo("ingest_payload_too_large");
            assertThat(rig.central.inbox().entries())
                    .extracting(Inbox.Entry::eventId)
                    .doesNotContain("HUGE-1")
                    .contains("SPLIT-1", "SPLIT-2", "SPLIT-3", "SPLIT-4");
            assertThat(rig.status().pauseReason()).isEmpty();
        }
    }

    @Test
    void a_400_that_follows_one_event_rejects_it_once_proven_and_order_holds() {
        try (ForwarderRig rig = new ForwarderRig(dir)) {
            rig.central.faults(new Faults("poison_400", 0, null, false, 0, 0, -1));
            for (int i = 1; i <= 4; i++) {
                rig.store("a", "A-" + i, i == 3 ? ",\"poison\":true" : "");
                rig.store("b", "B-" + i, "");
            }
            runWithNeighbour(rig, () -> rig.record("a", "A-4").state().isFinal(), 60);
            assertThat(rig.record("a", "A-3").state()).isEqualTo(CommandState.REJECTED);
            assertThat(rig.record("a", "A-3").code()).isEqualTo("ingest_bad_request");
            for (String id : List.of("A-1", "A-2", "A-4")) {
                assertThat(rig.finalsOf(id)).containsExactly("accepted");
            }
            for (int i = 1; i <= 4; i++) {
                assertThat(rig.finalsOf("B-" + i)).containsExactly("accepted");
            }
            assertThat(rig.central.inbox().entries())
                    .extracting(Inbox.Entry::eventId)
                    .doesNotContain("A-3");
            assertThat(rig.central.inbox().stats().get("orderingViolations")).isZero();
        }
    }

    @Test
    void a_400_to_every_request_rejects_nothing() {
        try (ForwarderRig rig = new ForwarderRig(dir)) {
            rig.central.faults(Faults.status(400, null, -1));
            for (int d = 1; d <= 6; d++) {
                rig.store("g" + d, "G-" + d, "");
            }
            for (int i = 0; i < 100; i++) {
                rig.store("n", "N-" + i, "");
                StepResult r = rig.step();
                rig.clock.advance(
                        r instanceof StepResult.Held held ? held.waitFor().plusMillis(1) : Duration.ofMillis(500));
            }
            assertThat(rig.central.requestLog())
                    .as("the gateway was asked again and again")
                    .hasSizeGreaterThan(5);
            for (int d = 1; d <= 6; d++) {
                assertThat(rig.record("g" + d, "G-" + d).state()).isEqualTo(CommandState.PENDING);
            }
            rig.central.faults(Faults.NONE);
            rig.runUntil(
                    () -> rig.central.inbox().entries().stream()
                                    .filter(e -> e.eventId().startsWith("G-"))
                                    .count()
                            == 6,
                    200);
        }
    }

    @Test
    void a_401_or_407_pauses_for_the_auth_retry_interval_and_loses_nothing() {
        for (int status : List.of(401, 407)) {
            try (ForwarderRig rig = new ForwarderRig(dir.resolve("s" + status))) {
                rig.central.faults(Faults.status(status, null, 1));
                rig.store("a", "AUTH-1", "");
                rig.step();
                assertThat(rig.step())
                        .isEqualTo(new StepResult.Held(ForwarderState.PAUSED_BY_CENTRAL, Duration.ofSeconds(5)));
                assertThat(rig.status().pauseReason())
                        .hasValueSatisfying(r -> assertThat(r).startsWith("HTTP " + status));
                assertThat(rig.status().nextAttemptAt())
                        .hasValue(rig.clock.instant().plusSeconds(5));
                assertThat(rig.record("a", "AUTH-1").state()).isEqualTo(CommandState.PENDING);
                assertThat(rig.finalsOf("AUTH-1")).isEmpty();
                rig.clock.advance(Duration.ofSeconds(5));
                assertThat(rig.step()).isInstanceOf(StepResult.Sent.class);
                assertThat(rig.finalsOf("AUTH-1")).containsExactly("accepted");
                assertThat(rig.status().pauseReason()).isEmpty();
            }
        }
    }

    @Test
    void a_403_to_one_event_parks_it_once_other_devices_are_answered_and_never_pauses_the_site() {
        try (ForwarderRig rig = new ForwarderRig(dir)) {
            rig.central.faults(Faults.poison("P-1", 403));
            rig.store("p", "P-1", "");
            rig.store("p", "P-2", "");
            rig.step();
            assertThat(rig.status().pauseReason())
                    .as("not paused by one event's 403")
                    .isEmpty();
            runWithNeighbour(rig, () -> rig.record("p", "P-1").state() == CommandState.PARKED, 60);
            assertThat(rig.record("p", "P-1").code()).isEqualTo("ingest_forbidden");
            assertThat(rig.status().pauseReason()).isEmpty();
        }
    }

    @Test
    void a_404_405_or_410_pauses_and_an_admin_resume_sends_at_once() {
        for (int status : List.of(404, 405, 410)) {
            try (ForwarderRig rig = new ForwarderRig(dir.resolve("s" + status))) {
                rig.central.faults(Faults.status(status, null, 1));
                rig.store("a", "NF-1", "");
                rig.step();
                assertThat(rig.step())
                        .isInstanceOfSatisfying(
                                StepResult.Held.class,
                                h -> assertThat(h.state()).isEqualTo(ForwarderState.PAUSED_BY_CENTRAL));
                assertThat(rig.status().pauseReason())
                        .hasValueSatisfying(r -> assertThat(r).contains(String.valueOf(status)));
                rig.forwarder.resume();
                assertThat(rig.step()).isInstanceOf(StepResult.Sent.class);
                assertThat(rig.finalsOf("NF-1")).containsExactly("accepted");
            }
        }
    }

    @Test
    void a_redirect_pauses_with_its_own_state_and_loses_nothing() {
        try (ForwarderRig rig = new ForwarderRig(dir)) {
            rig.central.faults(Faults.status(307, null, 1));
            rig.store("a", "R307", "");
            rig.step();
            assertThat(rig.step())
                    .isEqualTo(new StepResult.Held(ForwarderState.REDIRECTED_BY_CENTRAL, Duration.ofSeconds(5)));
            assertThat(rig.status().pauseReason())
                    .hasValueSatisfying(r -> assertThat(r).startsWith("HTTP 307"));
            assertThat(rig.record("a", "R307").state()).isEqualTo(CommandState.PENDING);
            rig.clock.advance(Duration.ofSeconds(5));
            rig.step();
            assertThat(rig.finalsOf("R307")).containsExactly("accepted");
        }
    }

    @Test
    void a_429_or_503_waits_its_retry_after_and_only_the_503_counts_against_central_in_the_breaker() {
        try (ForwarderRig rig = new ForwarderRig(dir)) {
            rig.central.faults(Faults.status(429, 2, 1));
            rig.store("a", "SLOW-1", "");
            rig.step();
            assertThat(rig.step()).isEqualTo(new StepResult.Held(ForwarderState.BACKING_OFF, Duration.ofSeconds(2)));
            assertThat(rig.forwarder.circuitBreaker().getMetrics().getNumberOfFailedCalls())
                    .isZero();
            rig.central.faults(Faults.status(503, 3, 1));
            rig.clock.advance(Duration.ofSeconds(2));
            rig.step();
            assertThat(rig.step()).isEqualTo(new StepResult.Held(ForwarderState.BACKING_OFF, Duration.ofSeconds(3)));
            assertThat(rig.forwarder.circuitBreaker().getMetrics().getNumberOfFailedCalls())
                    .isEqualTo(1);
            assertThat(rig.status().consecutiveFailures()).isEqualTo(2);
            assertThat(rig.status().lastError())
                    .hasValueSatisfying(e -> assertThat(e).startsWith("HTTP 503"));
            rig.clock.advance(Duration.ofSeconds(3));
            rig.step();
            assertThat(rig.finalsOf("SLOW-1")).containsExactly("accepted");
            assertThat(rig.central.requestLog())
                    .extracting(CentralSim.Request::status)
                    .containsExactly(429, 503, 200);
        }
    }

    @Test
    void a_retry_after_header_too_large_for_any_clock_is_clamped() {
        try (ForwarderRig rig = new ForwarderRig(dir, "forwarder.maxRetryAfter=1s")) {
            rig.central.faults(Faults.statusWithRetryAfter(429, "100000000000000000", 1));
            rig.store("a", "RH-1", "");
            rig.step();
            assertThat(rig.step()).isEqualTo(new StepResult.Held(ForwarderState.BACKING_OFF, Duration.ofSeconds(1)));
            assertThat(rig.record("a", "RH-1").state()).isEqualTo(CommandState.PENDING);
        }
    }

    @Test
    void server_errors_back_off_longer_each_time_and_nothing_is_final_until_central_answers() {
        try (ForwarderRig rig = new ForwarderRig(dir)) {
            rig.central.faults(Faults.status(500, null, 3));
            rig.store("a", "E500-1", "");
            for (long w : List.of(100, 200, 400)) {
                rig.step();
                StepResult held = rig.step();
                assertThat(held).isInstanceOfSatisfying(StepResult.Held.class, h -> {
                    assertThat(h.state()).isEqualTo(ForwarderState.BACKING_OFF);
                    assertThat(h.waitFor()).isBetween(Duration.ofMillis(w / 2 - 1), Duration.ofMillis(w));
                });
                assertThat(rig.finalsOf("E500-1")).isEmpty();
                rig.clock.advance(held.waitFor());
            }
            rig.step();
            assertThat(rig.central.requestLog())
                    .extracting(CentralSim.Request::status)
                    .containsExactly(500, 500, 500, 200);
            assertThat(rig.finalsOf("E500-1")).containsExactly("accepted");
        }
    }

    @Test
    void a_409_on_one_event_parks_it_as_refused_and_never_pauses_the_others() {
        try (ForwarderRig rig = new ForwarderRig(dir)) {
            rig.central.faults(Faults.poison("P-1", 409));
            rig.store("p", "P-1", "");
            rig.store("q", "Q-1", "");
            rig.store("r", "R-1", "");
            runWithNeighbour(rig, () -> rig.record("p", "P-1").state() == CommandState.PARKED, 60);
            assertThat(rig.record("p", "P-1").code()).isEqualTo("ingest_refused");
            assertThat(rig.finalsOf("Q-1")).containsExactly("accepted");
            assertThat(rig.finalsOf("R-1")).containsExactly("accepted");
            assertThat(rig.status().pauseReason())
                    .as("a 409 is no configuration fault")
                    .isEmpty();
        }
    }

    @Test
    void a_409_to_every_request_is_centrals_own_failure_it_backs_off_and_loses_nothing() {
        try (ForwarderRig rig = new ForwarderRig(dir)) {
            rig.central.faults(Faults.status(409, null, -1));
            rig.store("a", "C-1", "");
            rig.store("b", "C-2", "");
            rig.step();
            assertThat(rig.central.requestLog())
                    .as("one request: a step sends the main request, nothing looked into yet")
                    .hasSize(1);
            assertThat(rig.step())
                    .isInstanceOfSatisfying(
                            StepResult.Held.class, h -> assertThat(h.state()).isEqualTo(ForwarderState.BACKING_OFF));
            assertThat(rig.record("a", "C-1").state()).isEqualTo(CommandState.PENDING);
            assertThat(rig.record("b", "C-2").state()).isEqualTo(CommandState.PENDING);
            assertThat(failedAlone(rig, "a", "C-1") + failedAlone(rig, "b", "C-2"))
                    .as("nothing counted")
                    .isZero();
            rig.central.faults(Faults.NONE);
            rig.runUntil(() -> rig.central.inbox().entries().size() == 2, 60);
            assertThat(rig.finalsOf("C-1")).containsExactly("accepted");
            assertThat(rig.finalsOf("C-2")).containsExactly("accepted");
        }
    }

    @Test
    void an_event_that_alone_makes_central_fail_is_isolated_and_parked_while_the_others_go_on() {
        try (ForwarderRig rig = new ForwarderRig(dir)) {
            rig.central.faults(Faults.poison("P-2", 500));
            for (int i = 1; i <= 3; i++) {
                rig.store("p", "P-" + i, "");
                rig.store("q", "Q-" + i, "");
                rig.store("r", "R-" + i, "");
            }
            runWithNeighbour(rig, () -> rig.record("p", "P-2").state() == CommandState.PARKED, 60);
            assertThat(rig.record("p", "P-2").code()).isEqualTo("ingest_server_error");
            assertThat(rig.finalsOf("P-1")).containsExactly("accepted");
            for (int i = 1; i <= 3; i++) {
                assertThat(rig.finalsOf("Q-" + i)).containsExactly("accepted");
                assertThat(rig.finalsOf("R-" + i)).containsExactly("accepted");
            }
            assertThat(rig.record("p", "P-3").state())
                    .as("waits behind the parked one")
                    .isEqualTo(CommandState.PENDING);
            assertThat(rig.status().parked()).isEqualTo(1);
        }
    }

    @Test
    void an_event_that_fails_alone_while_central_fails_other_requests_too_takes_more_failures_to_be_parked() {
        try (ForwarderRig rig = new ForwarderRig(dir)) {
            // central fails whole requests first (both halves of each bisection): no event to blame, central is flaky
            rig.central.faults(Faults.status(500, null, 12));
            for (int d = 1; d <= 4; d++) {
                rig.store("w" + d, "W-" + d, "");
            }
            rig.runUntil(() -> rig.central.inbox().entries().size() == 4, 2_000);
            ForwarderStatus.ServerErrors evidence = rig.status().serverErrors();
            assertThat(evidence.raised()).as("%s", evidence).isTrue();
            int limit = evidence.failuresToPark();
            rig.central.faults(Faults.poison("P-1", 500));
            rig.store("p", "P-1", "");
            rig.store("q", "Q-1", "");
            runWithNeighbour(rig, () -> rig.record("p", "P-1").state() == CommandState.PARKED, 400);
            // the failures before the one that parks it: more than the rig's maxServerErrors=2 asks for
            assertThat(failedAlone(rig, "p", "P-1")).isGreaterThan(1).isLessThan(limit);
            assertThat(rig.record("p", "P-1").lastError()).contains("more while central fails other requests too");
            assertThat(rig.finalsOf("Q-1")).containsExactly("accepted");
        }
    }

    @Test
    void suspects_are_not_sent_one_after_another_while_central_answers_nothing_and_none_of_them_is_counted()
            throws Exception {
        try (ForwarderRig rig = new ForwarderRig(dir);
                Connection db = DriverManager.getConnection("jdbc:sqlite:" + rig.outbox.file())) {
            for (int d = 1; d <= 6; d++) {
                rig.store("s" + d, "S-" + d, "");
            }
            makeSuspects(db, "S-%");
            rig.central.faults(Faults.status(500, null, -1)); // central fails everything: not one event's doing
            for (int i = 0; i < 10; i++) {
                int before = rig.central.requestLog().size();
                rig.step();
                assertThat(rig.central.requestLog().size() - before)
                        .as("at most one request: no other traffic")
                        .isLessThanOrEqualTo(1);
                rig.clock.advance(Duration.ofSeconds(1));
            }
            for (int d = 1; d <= 6; d++) {
                assertThat(rig.record("s" + d, "S-" + d).state()).isEqualTo(CommandState.PENDING);
                assertThat(failedAlone(rig, "s" + d, "S-" + d))
                        .as("not counted toward parking")
                        .isZero();
            }
            rig.central.faults(Faults.NONE);
            rig.runUntil(() -> rig.central.inbox().entries().size() == 6, 60);
            for (int d = 1; d <= 6; d++) {
                assertThat(rig.finalsOf("S-" + d)).containsExactly("accepted");
            }
        }
    }

    @Test
    void a_later_suspect_of_a_device_waits_until_its_earlier_one_is_final() throws Exception {
        try (ForwarderRig rig = new ForwarderRig(dir);
                Connection db = DriverManager.getConnection("jdbc:sqlite:" + rig.outbox.file())) {
            rig.store("a", "A-1", "");
            rig.store("a", "A-2", "");
            rig.store("b", "B-1", "");
            makeSuspects(db, "A-%");
            rig.central.faults(Faults.poison("A-1", 500));
            rig.step();
            assertThat(rig.finalsOf("B-1")).containsExactly("accepted");
            assertThat(rig.central.inbox().entries())
                    .extracting(Inbox.Entry::eventId)
                    .as("A-2 is not sent while A-1, ahead of it, failed")
                    .containsExactly("B-1");
            assertThat(rig.record("a", "A-2").state()).isEqualTo(CommandState.PENDING);
            assertThat(rig.record("a", "A-1").state())
                    .as("its second failure alone (the rig's maxServerErrors)")
                    .isEqualTo(CommandState.PARKED);
            rig.central.faults(Faults.NONE);
            assertThat(rig.outbox
                            .parked()
                            .decide(List.of(rig.record("a", "A-1").id()), ParkedDesk.Decision.REQUEUE, "by a test"))
                    .hasSize(1);
            rig.runUntil(() -> rig.central.inbox().entries().size() == 3, 60);
            assertThat(rig.central.inbox().entries())
                    .extracting(Inbox.Entry::eventId)
                    .containsExactly("B-1", "A-1", "A-2");
        }
    }

    /**
     * Runs steps as the loop would, moving the clock, while device "n" sends one command every other step: the other
     * traffic that a suspect's failure is compared with (docs/forwarding.md, "Blame"). @return when done
     */
    private static void runWithNeighbour(ForwarderRig rig, java.util.function.BooleanSupplier done, int maxSteps) {
        for (int i = 0; i < maxSteps && !done.getAsBoolean(); i++) {
            if (i % 2 == 0) {
                rig.store("n", "N-" + i, "");
            }
            StepResult r = rig.step();
            rig.clock.advance(
                    r instanceof StepResult.Held held ? held.waitFor().plusMillis(1) : Duration.ofMillis(500));
        }
        assertThat(done.getAsBoolean())
                .as("done within %d steps; central saw %s", maxSteps, rig.central.requestLog())
                .isTrue();
    }

    /** Marks the commands as having made central fail alone once before (e.g. before a restart): suspects. */
    private static void makeSuspects(Connection db, String commandIdPattern) throws Exception {
        try (Statement s = db.createStatement()) {
            s.execute("UPDATE commands SET central_failures = 1 WHERE command_id LIKE '" + commandIdPattern + "'");
        }
    }

    private static long failedAlone(ForwarderRig rig, String device, String commandId) {
        return rig.outbox.reads().history(rig.record(device, commandId).id()).stream()
                .filter(h -> h.kind().equals("failed_alone"))
                .mapToLong(h -> h.times())
                .sum();
    }

    @Test
    void no_connection_to_central_backs_off_names_host_and_port_and_sends_nothing() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try (ForwarderRig rig = new ForwarderRig(dir, "ingest.url=http://127.0.0.1:" + port + "/ingest")) {
            rig.store("a", "DOWN-1", "");
            assertThat(rig.step()).isInstanceOf(StepResult.Sent.class);
            assertThat(rig.step())
                    .isInstanceOfSatisfying(
                            StepResult.Held.class, h -> assertThat(h.state()).isEqualTo(ForwarderState.BACKING_OFF));
            assertThat(rig.status().lastError())
                    .hasValueSatisfying(e -> assertThat(e)
                            .isEqualTo("central unreachable: connection to 127.0.0.1:" + port
                                    + " refused (nothing listens there: check ingest.url)"));
            assertThat(rig.status().requests()).isEqualTo(1);
            assertThat(rig.status().eventsSent()).as("never reached central").isZero();
            assertThat(rig.record("a", "DOWN-1").state()).isEqualTo(CommandState.PENDING);
        }
    }

    @Test
    void the_breaker_opens_holds_claims_back_half_opens_after_breaker_open_for_and_closes_on_a_good_probe() {
        try (ForwarderRig rig = new ForwarderRig(dir)) {
            // the breaker counts the main requests' failures (a probe's never: docs/forwarding.md, "Blame"), so new
            // devices keep sending while central fails everything
            rig.central.faults(Faults.status(500, null, -1));
            for (int i = 1;
                    i <= 40 && !rig.forwarder.circuitBreaker().getState().name().equals("OPEN");
                    i++) {
                rig.store("d" + i, "BR-" + i, "");
                StepResult r = rig.step();
                if (r instanceof StepResult.Held held
                        && !rig.forwarder.circuitBreaker().getState().name().equals("OPEN")) {
                    rig.clock.advance(held.waitFor().plusMillis(1));
                }
            }
            assertThat(rig.forwarder.circuitBreaker().getState().name()).isEqualTo("OPEN");
            int sent = rig.central.requestLog().size();
            java.time.Instant breakerEnds = rig.status().nextAttemptAt().orElseThrow();
            assertThat(breakerEnds)
                    .as("the next attempt is the end of the breaker's open time, after the backoff")
                    .isEqualTo(rig.clock.instant().plusSeconds(10));
            rig.clock.advance(Duration.ofSeconds(9));
            assertThat(rig.step())
                    .isEqualTo(new StepResult.Held(ForwarderState.BREAKER_OPEN, ForwarderWaits.BREAKER_POLL));
            assertThat(rig.central.requestLog()).as("nothing sent while open").hasSize(sent);
            assertThat(rig.record("d1", "BR-1").state()).as("nor claimed").isEqualTo(CommandState.PENDING);
            rig.store("late", "BR-LATE", "");
            rig.clock.advance(Duration.ofSeconds(1));
            rig.step(); // half-open: one main request, central fails it once more
            assertThat(rig.central.requestLog()).hasSizeGreaterThan(sent);
            assertThat(rig.status().circuitBreaker()).isEqualTo("open");
            rig.central.faults(Faults.NONE);
            rig.clock.advance(Duration.ofSeconds(10));
            rig.runUntil(() -> rig.finalsOf("BR-1").contains("accepted"), 200);
            assertThat(rig.status().circuitBreaker()).isEqualTo("closed");
        }
    }

    @Test
    void an_admin_pause_claims_nothing_until_resume() {
        try (ForwarderRig rig = new ForwarderRig(dir)) {
            rig.store("a", "HOLD-1", "");
            rig.forwarder.pause();
            StepResult paused = rig.step();
            assertThat(paused).isEqualTo(new StepResult.Idle(ForwarderState.PAUSED_BY_ADMIN, ForwarderWaits.IDLE_POLL));
            assertThat(rig.status().pausedByAdmin()).isTrue();
            assertThat(rig.central.requestLog()).isEmpty();
            rig.forwarder.resume();
            assertThat(rig.step()).isInstanceOf(StepResult.Sent.class);
            assertThat(rig.finalsOf("HOLD-1")).containsExactly("accepted");
        }
    }

    @Test
    void an_answer_the_outbox_cannot_commit_is_kept_and_committed_before_anything_new_is_sent() throws Exception {
        try (ForwarderRig rig = new ForwarderRig(dir);
                Connection db = DriverManager.getConnection("jdbc:sqlite:" + rig.outbox.file())) {
            rig.store("a", "KEEP-1", "");
            try (Statement s = db.createStatement()) {
                s.execute(
                        "CREATE TRIGGER test_fail_final BEFORE UPDATE OF state ON commands WHEN NEW.state = 'accepted' "
                                + "BEGIN SELECT RAISE(ABORT, 'test: the disk is full'); END");
            }
            rig.step();
            assertThat(rig.status().unsettledEvents()).isEqualTo(1);
            assertThat(rig.step())
                    .isEqualTo(new StepResult.Held(
                            ForwarderState.OUTBOX_UNWRITABLE, ForwarderWaits.OUTBOX_UNWRITABLE_RETRY));
            assertThat(rig.finalsOf("KEEP-1")).isEmpty();
            try (Statement s = db.createStatement()) {
                s.execute("DROP TRIGGER test_fail_final");
            }
            rig.step();
            assertThat(rig.status().unsettledEvents()).isZero();
            assertThat(rig.finalsOf("KEEP-1")).containsExactly("accepted");
            assertThat(rig.central.inbox().entries())
                    .singleElement()
                    .satisfies(e -> assertThat(e.deliveries()).isEqualTo(1));
        }
    }

    @Test
    void a_claim_that_fails_is_a_failed_step_tried_again_later() throws Exception {
        try (ForwarderRig rig = new ForwarderRig(dir);
                Connection db = DriverManager.getConnection("jdbc:sqlite:" + rig.outbox.file())) {
            rig.store("a", "CF-1", "");
            try (Statement s = db.createStatement()) {
                s.execute(
                        "CREATE TRIGGER test_fail_claim BEFORE UPDATE OF state ON commands WHEN NEW.state = 'inflight' "
                                + "BEGIN SELECT RAISE(ABORT, 'test: the claim cannot be written'); END");
            }
            assertThat(rig.step())
                    .isInstanceOfSatisfying(
                            StepResult.Failed.class,
                            f -> assertThat(f.waitFor()).isEqualTo(ForwarderWaits.AFTER_FAILED_STEP));
            assertThat(rig.status().failedSteps()).isEqualTo(1);
            try (Statement s = db.createStatement()) {
                s.execute("DROP TRIGGER test_fail_claim");
            }
            assertThat(rig.step()).isInstanceOf(StepResult.Sent.class);
            assertThat(rig.finalsOf("CF-1")).containsExactly("accepted");
        }
    }

    @Test
    void a_request_beyond_the_rate_waits_for_its_permit_before_claiming_and_takes_what_came_meanwhile() {
        try (ForwarderRig rig = new ForwarderRig(dir, "forwarder.requestsPerSecond=1")) {
            rig.store("a", "RL-1", "");
            assertThat(rig.step()).isInstanceOf(StepResult.Sent.class);
            rig.store("a", "RL-2", "");
            rig.store("b", "RL-3", "");
            // one permit a second: the next step waits for it (Resilience4j's limiter runs on real time) and claims
            // nothing
            StepResult held = rig.step();
            assertThat(held).isInstanceOf(StepResult.Held.class);
            assertThat(held.waitFor()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(1));
            assertThat(rig.record("a", "RL-2").state()).isEqualTo(CommandState.PENDING);
            await().atMost(Duration.ofSeconds(5)).until(() -> rig.step() instanceof StepResult.Sent);
            assertThat(rig.finalsOf("RL-2")).containsExactly("accepted");
            assertThat(rig.finalsOf("RL-3")).containsExactly("accepted");
            assertThat(rig.central.requestLog())
                    .extracting(CentralSim.Request::events)
                    .as("events per request")
                    .containsExactly(1, 2);
            assertThat(rig.rateLimitWaits)
                    .as("no wait inside a request: the step waited before it claimed")
                    .isEmpty();
        }
    }
}
