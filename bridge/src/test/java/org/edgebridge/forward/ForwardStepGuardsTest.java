package org.edgebridge.forward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import org.edgebridge.central.CentralSim;
import org.edgebridge.central.Faults;
import org.edgebridge.outbox.CommandState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One forwarder step at a time against the reference central: no connection, the circuit breaker, an admin pause,
 * an outbox that fails, the rate limit.
 */
class ForwardStepGuardsTest {
    @TempDir
    Path dir;

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
        try (ForwarderRig rig = new ForwarderRig(dir)) {
            rig.store("a", "KEEP-1", "");
            rig.failWritesTo("accepted", "test: the disk is full");
            rig.step();
            assertThat(rig.status().unsettledEvents()).isEqualTo(1);
            assertThat(rig.step())
                    .isEqualTo(new StepResult.Held(
                            ForwarderState.OUTBOX_UNWRITABLE, ForwarderWaits.OUTBOX_UNWRITABLE_RETRY));
            assertThat(rig.finalsOf("KEEP-1")).isEmpty();
            rig.writesSucceed();
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
        try (ForwarderRig rig = new ForwarderRig(dir)) {
            rig.store("a", "CF-1", "");
            rig.failWritesTo("inflight", "test: the claim cannot be written");
            assertThat(rig.step())
                    .isInstanceOfSatisfying(
                            StepResult.Failed.class,
                            f -> assertThat(f.waitFor()).isEqualTo(ForwarderWaits.AFTER_FAILED_STEP));
            assertThat(rig.status().failedSteps()).isEqualTo(1);
            rig.writesSucceed();
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
