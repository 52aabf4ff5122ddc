package org.edgebridge.forward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import org.edgebridge.TestClock;
import org.edgebridge.config.ConfigLoader;
import org.junit.jupiter.api.Test;

/** The Resilience4j guards as the forwarder configures them: what each one decides, not how fast anything goes. */
class CentralGuardsTest {
    private static CentralGuards guards(String... sets) {
        List<String> all = new java.util.ArrayList<>(List.of("ingest.url=http://127.0.0.1:1/ingest"));
        all.addAll(List.of(sets));
        return new CentralGuards(ConfigLoader.load(null, all).forwarder(), new TestClock());
    }

    private static CentralCall.Sent failed() {
        return new CentralCall.Sent(
                new IngestReply(500, new byte[0], Optional.empty(), Optional.empty(), null),
                new RequestOutcome.Failed("HTTP 500", RequestOutcome.Cause.SERVER_ERROR));
    }

    @Test
    void a_batch_of_a_whole_seconds_events_goes_at_once_and_the_next_waits_for_the_next_second() {
        CentralGuards guards = guards("forwarder.eventsPerSecond=200", "forwarder.requestsPerSecond=100000");
        long first = guards.reserve(200);
        long second = guards.reserve(200);
        assertThat(first)
                .as("an idle limiter holds one batch (200: a second's worth)")
                .isZero();
        assertThat(second)
                .as("no burst: the second batch waits for the next second")
                .isPositive()
                .isLessThanOrEqualTo(1_000_000_000L);
    }

    @Test
    void every_refresh_holds_one_whole_batch_so_that_a_request_under_way_loses_no_permits() {
        // 2,000 events/s, batches of 500: a refresh of 500 every 250 ms. With 200 every 100 ms (a tenth of the rate),
        // the refreshes that passed while a request was on its way were lost: the drain held 1,625 of 2,000/s (B5)
        CentralGuards guards = guards("forwarder.eventsPerSecond=2000", "forwarder.requestsPerSecond=100000");
        assertThat(guards.events.getRateLimiterConfig().getLimitForPeriod()).isEqualTo(500);
        assertThat(guards.events.getRateLimiterConfig().getLimitRefreshPeriod())
                .isEqualTo(java.time.Duration.ofMillis(250));
        assertThat(guards.reserve(500))
                .as("the first batch finds its permits in one refresh")
                .isZero();
        assertThat(guards.reserve(500))
                .as("the next waits for one refresh, no more")
                .isPositive()
                .isLessThanOrEqualTo(250_000_000L);
    }

    @Test
    void at_the_default_rate_a_refresh_is_still_a_tenth_of_a_second() {
        CentralGuards guards = guards();
        assertThat(guards.events.getRateLimiterConfig().getLimitForPeriod()).isEqualTo(500);
        assertThat(guards.events.getRateLimiterConfig().getLimitRefreshPeriod())
                .isEqualTo(java.time.Duration.ofMillis(100));
    }

    @Test
    void a_request_within_the_rate_does_not_wait() {
        assertThat(guards().reserve(1)).isZero();
    }

    @Test
    void the_breaker_records_a_failed_request_but_ignores_a_failure_of_a_bisection() {
        CentralGuards guards = guards();
        assertThatThrownBy(() -> guards.breaker.executeSupplier(() -> {
                    throw new CentralCall.IgnoredFailure(failed());
                }))
                .isInstanceOf(CentralCall.IgnoredFailure.class);
        assertThat(guards.breaker.getMetrics().getNumberOfFailedCalls()).isZero();
        assertThat(guards.breaker.getMetrics().getNumberOfBufferedCalls()).isZero();
        guards.breaker.executeSupplier(CentralGuardsTest::failed);
        assertThat(guards.breaker.getMetrics().getNumberOfFailedCalls()).isEqualTo(1);
    }

    @Test
    void the_bulkhead_lets_as_many_requests_in_flight_as_configured() {
        CentralGuards guards = guards("forwarder.maxConcurrentRequests=2");
        assertThat(guards.bulkhead.tryAcquirePermission()).isTrue();
        assertThat(guards.bulkhead.tryAcquirePermission()).isTrue();
        assertThat(guards.bulkhead.tryAcquirePermission()).isFalse();
        guards.bulkhead.onComplete();
        assertThat(guards.bulkhead.tryAcquirePermission()).isTrue();
    }

    @Test
    void the_wait_for_a_request_permit_counts_the_permits_reserved_ahead() {
        // 1 request/s: one permit a second, so that no spacing ends while the test looks
        CentralGuards guards = guards("forwarder.requestsPerSecond=1");
        assertThat(guards.untilRequestPermit())
                .as("an idle limiter has its permit now")
                .isZero();
        guards.reserve(0);
        assertThat(guards.untilRequestPermit())
                .as("the spacing's permit is taken: the next comes with the next second")
                .isPositive()
                .isLessThanOrEqualTo(java.time.Duration.ofSeconds(1));
        guards.reserve(0);
        guards.reserve(0);
        assertThat(guards.untilRequestPermit())
                .as("two reserved ahead: two whole spacings, and the rest of this one")
                .isGreaterThan(java.time.Duration.ofSeconds(2))
                .isLessThanOrEqualTo(java.time.Duration.ofSeconds(3));
    }
}
