package org.edgebridge.forward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.edgebridge.central.CentralSim;
import org.edgebridge.central.Faults;
import org.edgebridge.central.Inbox;
import org.edgebridge.outbox.CommandState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One forwarder step at a time against the reference central: each HTTP status of docs/forwarding.md that is not
 * a 200 with receipts, what the outbox holds after it and what the forwarder waits for next.
 */
class ForwardStepStatusTest {
    @TempDir
    Path dir;

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
            rig.runWithNeighbour(() -> rig.record("h", "HUGE-1").state().isFinal(), 60);
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
            rig.runWithNeighbour(() -> rig.record("a", "A-4").state().isFinal(), 60);
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
            rig.runWithNeighbour(() -> rig.record("p", "P-1").state() == CommandState.PARKED, 60);
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
            rig.runWithNeighbour(() -> rig.record("p", "P-1").state() == CommandState.PARKED, 60);
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
            assertThat(rig.failedAlone("a", "C-1") + rig.failedAlone("b", "C-2"))
                    .as("nothing counted")
                    .isZero();
            rig.central.faults(Faults.NONE);
            rig.runUntil(() -> rig.central.inbox().entries().size() == 2, 60);
            assertThat(rig.finalsOf("C-1")).containsExactly("accepted");
            assertThat(rig.finalsOf("C-2")).containsExactly("accepted");
        }
    }
}
