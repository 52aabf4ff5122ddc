package org.edgebridge.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.edgebridge.TestClock;
import org.junit.jupiter.api.Test;

/** The status page's last hour: rates from counter deltas, a ring of 360 samples, breaker openings within the hour. */
class ActivityHistoryTest {
    private final TestClock clock = new TestClock();
    private final AtomicLong open = new AtomicLong();
    private final AtomicLong stored = new AtomicLong();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final CircuitBreakerRegistry breakers = CircuitBreakerRegistry.ofDefaults();
    private final CircuitBreaker central = breakers.circuitBreaker("central");
    private final ActivityHistory history = new ActivityHistory(clock, open::get, stored::get, meters, breakers);

    @Test
    void rates_are_the_counters_growth_per_second_since_the_sample_before() {
        Counter finals = Counter.builder("edgebridge.receipt.finals")
                .tag("status", "accepted")
                .register(meters);
        history.sample();
        stored.addAndGet(50);
        finals.increment(20);
        open.set(30);
        clock.advance(ActivityHistory.INTERVAL);
        history.sample();
        List<ActivityHistory.Sample> samples = samples();
        assertThat(samples.get(0).inPerSecond())
                .as("nothing to compare the first with")
                .isNull();
        assertThat(samples.get(1)).isEqualTo(new ActivityHistory.Sample(clock.instant(), 30, 5.0, 2.0, false));
    }

    @Test
    void the_ring_keeps_the_last_360_samples_and_the_breaker_openings_of_that_hour() {
        central.transitionToOpenState();
        Instant firstOpening = clock.instant();
        for (int i = 0; i < 400; i++) {
            history.sample();
            clock.advance(ActivityHistory.INTERVAL);
        }
        assertThat(samples()).hasSize(ActivityHistory.MAX_SAMPLES);
        assertThat(samples().get(0).breakerOpen()).isTrue();
        assertThat(openings()).as("opened more than an hour ago").isEmpty();
        central.transitionToClosedState();
        central.transitionToOpenState();
        assertThat(openings()).containsExactly(clock.instant()).doesNotContain(firstOpening);
    }

    @SuppressWarnings("unchecked")
    private List<ActivityHistory.Sample> samples() {
        return (List<ActivityHistory.Sample>) snapshot().get("samples");
    }

    @SuppressWarnings("unchecked")
    private List<Instant> openings() {
        return (List<Instant>) snapshot().get("breakerOpened");
    }

    private Map<String, Object> snapshot() {
        return history.snapshot();
    }
}
