package org.edgebridge.forward;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.edgebridge.TestClock;
import org.edgebridge.config.ConfigLoader;
import org.junit.jupiter.api.Test;

/** The forwarder's decisions on a clock the test moves: pauses, backoff, the circuit breaker's states. No network. */
class ForwarderPolicyTest {
    private final TestClock clock = new TestClock();
    private final ForwarderSettings settings = ConfigLoader.load(
                    null,
                    List.of(
                            "ingest.url=http://127.0.0.1:1/ingest",
                            "forwarder.backoffInitial=100ms",
                            "forwarder.backoffMax=1s",
                            "forwarder.authRetryInterval=5s",
                            "forwarder.breakerOpenFor=10s"))
            .forwarder();
    private final CentralGuards guards = new CentralGuards(settings, clock);
    private final ForwarderPolicy policy = new ForwarderPolicy(settings, clock, guards.breaker);

    private Optional<StepResult> holdBack() {
        return policy.holdBack();
    }

    /** A request through the circuit breaker, as {@link CentralCall} makes it, that central answers or fails. */
    private void call(boolean fails) {
        RequestOutcome outcome = fails
                ? new RequestOutcome.Failed("HTTP 500", RequestOutcome.Cause.SERVER_ERROR)
                : new RequestOutcome.Answered(List.of(), List.of());
        guards.breaker.executeSupplier(() -> new CentralCall.Sent(
                new IngestReply(fails ? 500 : 200, new byte[0], Optional.empty(), Optional.empty(), null), outcome));
    }

    @Test
    void the_backoff_doubles_per_failure_drawn_from_the_upper_half_and_is_capped_at_backoff_max() {
        for (int n = 1; n <= 8; n++) {
            long w = Math.min(100L << (n - 1), 1000);
            Set<Duration> seen = new HashSet<>();
            for (int i = 0; i < 300; i++) {
                Duration d = policy.backoff(n);
                assertThat(d).as("failure %d", n).isBetween(Duration.ofMillis(w / 2 - 1), Duration.ofMillis(w));
                seen.add(d);
            }
            assertThat(seen).as("jittered, also at the cap (failure %d)", n).hasSizeGreaterThan(5);
        }
    }

    @Test
    void a_failure_after_a_retry_after_in_the_same_round_does_not_shorten_it_and_an_admin_ends_both_and_the_breaker() {
        policy.throttled(Duration.ofMinutes(2), "HTTP 429");
        policy.failed("HTTP 500 of the bisection's other half");
        assertThat(policy.nextAttemptAt()).hasValue(clock.instant().plus(Duration.ofMinutes(2)));
        for (int i = 0; i < 5; i++) {
            call(true);
        }
        assertThat(guards.breaker.getState()).isEqualTo(CircuitBreaker.State.OPEN);
        assertThat(policy.endWaits()).as("the breaker was open").isTrue();
        assertThat(policy.nextAttemptAt()).isEmpty();
        assertThat(guards.breaker.getState()).as("one probe at once").isEqualTo(CircuitBreaker.State.HALF_OPEN);
        assertThat(holdBack()).isEmpty();
    }

    @Test
    void a_503_waits_at_least_its_retry_after_and_at_least_the_backoff() {
        policy.failed("HTTP 503", Duration.ofSeconds(9));
        assertThat(policy.nextAttemptAt()).hasValue(clock.instant().plusSeconds(9));
        clock.advance(Duration.ofSeconds(9));
        policy.failed("HTTP 503", Duration.ofMillis(1));
        assertThat(holdBack().orElseThrow().waitFor())
                .as("second failure: the backoff is longer than the Retry-After")
                .isBetween(Duration.ofMillis(99), Duration.ofMillis(200));
    }

    @Test
    void a_failed_request_holds_requests_back_until_the_backoff_has_passed_on_the_clock() {
        assertThat(holdBack()).isEmpty();
        policy.failed("HTTP 500");
        Optional<StepResult> held = holdBack();
        assertThat(held).hasValueSatisfying(h -> {
            assertThat(h).isInstanceOf(StepResult.Held.class);
            assertThat(((StepResult.Held) h).state()).isEqualTo(ForwarderState.BACKING_OFF);
            assertThat(h.waitFor()).isBetween(Duration.ofMillis(49), Duration.ofMillis(100));
            assertThat(h.endsOnWake()).isFalse();
        });
        assertThat(policy.nextAttemptAt())
                .hasValue(clock.instant().plus(held.get().waitFor()));
        assertThat(policy.stillSending()).isFalse();
        clock.advance(held.get().waitFor());
        assertThat(holdBack()).isEmpty();
        assertThat(policy.stillSending()).isTrue();
        assertThat(policy.consecutiveFailures()).isEqualTo(1);
        assertThat(policy.lastError()).hasValue("HTTP 500");
        assertThat(policy.lastErrorAt())
                .hasValue(clock.instant().minus(held.get().waitFor()));
    }

    @Test
    void throttling_waits_centrals_retry_after_or_the_backoff_when_there_is_none_and_an_answer_resets_the_count() {
        policy.throttled(Duration.ofSeconds(7), "HTTP 429");
        assertThat(holdBack()).hasValue(new StepResult.Held(ForwarderState.BACKING_OFF, Duration.ofSeconds(7)));
        clock.advance(Duration.ofSeconds(7));
        policy.throttled(Duration.ZERO, "HTTP 429");
        assertThat(holdBack().orElseThrow().waitFor())
                .as("second failure: 200 ms drawn from its upper half")
                .isBetween(Duration.ofMillis(99), Duration.ofMillis(200));
        assertThat(policy.consecutiveFailures()).isEqualTo(2);
        policy.answered();
        assertThat(policy.consecutiveFailures()).isZero();
        assertThat(policy.lastSuccessAt()).hasValue(clock.instant());
    }

    @Test
    void a_refusal_pauses_for_the_auth_retry_interval_and_a_redirect_has_its_own_state() {
        policy.refused("HTTP 401", false);
        assertThat(holdBack()).hasValue(new StepResult.Held(ForwarderState.PAUSED_BY_CENTRAL, Duration.ofSeconds(5)));
        assertThat(policy.pauseReason()).hasValue("HTTP 401");
        clock.advance(Duration.ofSeconds(2));
        assertThat(holdBack()).hasValue(new StepResult.Held(ForwarderState.PAUSED_BY_CENTRAL, Duration.ofSeconds(3)));
        clock.advance(Duration.ofSeconds(3));
        assertThat(holdBack()).as("tried again after the interval").isEmpty();
        assertThat(policy.pauseReason()).as("until central answers").hasValue("HTTP 401");
        policy.refused("HTTP 307 to https://elsewhere", true);
        assertThat(holdBack())
                .hasValue(new StepResult.Held(ForwarderState.REDIRECTED_BY_CENTRAL, Duration.ofSeconds(5)));
        policy.answered();
        assertThat(holdBack()).isEmpty();
        assertThat(policy.pauseReason()).isEmpty();
    }

    @Test
    void an_admin_pause_is_an_idle_wait_that_a_wake_ends_and_resume_also_ends_a_pause_or_backoff_by_central() {
        policy.pause();
        assertThat(holdBack()).hasValueSatisfying(h -> {
            assertThat(h).isEqualTo(new StepResult.Idle(ForwarderState.PAUSED_BY_ADMIN, ForwarderWaits.IDLE_POLL));
            assertThat(h.endsOnWake()).isTrue();
        });
        assertThat(policy.state()).isEqualTo(ForwarderState.PAUSED_BY_ADMIN);
        policy.resume();
        assertThat(holdBack()).isEmpty();
        policy.refused("HTTP 403", false);
        policy.resume();
        assertThat(holdBack()).isEmpty();
        policy.failed("HTTP 500");
        policy.resume();
        assertThat(holdBack()).isEmpty();
        assertThat(policy.nextAttemptAt()).isEmpty();
    }

    @Test
    void the_breaker_opens_on_failures_holds_back_until_breaker_open_for_has_passed_then_lets_one_probe_decide() {
        for (int i = 0; i < 5; i++) {
            call(true);
        }
        assertThat(guards.breaker.getState()).isEqualTo(CircuitBreaker.State.OPEN);
        assertThat(holdBack()).hasValue(new StepResult.Held(ForwarderState.BREAKER_OPEN, ForwarderWaits.BREAKER_POLL));
        clock.advance(Duration.ofMillis(9_900));
        assertThat(holdBack())
                .as("the wait ends when the breaker may half-open")
                .hasValue(new StepResult.Held(ForwarderState.BREAKER_OPEN, Duration.ofMillis(100)));
        clock.advance(Duration.ofMillis(100));
        assertThat(holdBack()).isEmpty();
        assertThat(guards.breaker.getState()).isEqualTo(CircuitBreaker.State.HALF_OPEN);
        assertThat(policy.afterRequest()).isEqualTo(ForwarderWaits.BREAKER_POLL);
        call(true);
        assertThat(guards.breaker.getState()).as("the probe failed").isEqualTo(CircuitBreaker.State.OPEN);
        assertThat(holdBack()).isPresent();
        clock.advance(Duration.ofSeconds(10));
        assertThat(holdBack()).isEmpty();
        call(false);
        assertThat(guards.breaker.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
        assertThat(policy.afterRequest()).isEqualTo(Duration.ZERO);
    }

    @Test
    void a_429_is_not_a_failure_for_the_breaker_but_a_503_is() {
        CentralCall.Sent throttled429 = new CentralCall.Sent(
                new IngestReply(429, new byte[0], Optional.empty(), Optional.empty(), null),
                new RequestOutcome.Throttled(Duration.ZERO, "HTTP 429"));
        CentralCall.Sent throttled503 = new CentralCall.Sent(
                new IngestReply(503, new byte[0], Optional.empty(), Optional.empty(), null),
                new RequestOutcome.Failed("HTTP 503", RequestOutcome.Cause.UNAVAILABLE));
        assertThat(throttled429.isFailure()).isFalse();
        assertThat(throttled503.isFailure()).isTrue();
    }

    @Test
    void the_state_names_are_those_of_the_status_page() {
        assertThat(ForwarderState.REDIRECTED_BY_CENTRAL.statusName()).isEqualTo("redirected_by_central");
        assertThat(ForwarderState.OUTBOX_UNWRITABLE.statusName()).isEqualTo("outbox_unwritable");
    }

    @Test
    void failed_steps_count_in_a_row_until_central_answers() {
        policy.failed("timeout after 30000 ms");
        policy.failed("timeout after 30000 ms");
        assertThat(policy.consecutiveFailures()).isEqualTo(2);
        assertThat(policy.lastError()).contains("timeout after 30000 ms");
        policy.answered();
        assertThat(policy.consecutiveFailures()).isZero();
    }
}
