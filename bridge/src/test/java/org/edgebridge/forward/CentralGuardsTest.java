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
        return new CentralCall.Sent(new IngestReply(500, new byte[0], Optional.empty(), Optional.empty(), null),
                new RequestOutcome.Failed("HTTP 500", true, false));
    }

    @Test
    void a_batch_of_a_whole_seconds_events_waits_for_the_refreshes_it_needs_and_the_next_one_waits_longer() {
        CentralGuards guards = guards("forwarder.eventsPerSecond=200", "forwarder.requestsPerSecond=100000");
        long first = guards.reserve(200);
        long second = guards.reserve(200);
        assertThat(first).as("20 permits a tenth of a second: 200 are not there at once").isPositive();
        assertThat(second).as("no burst: the second batch waits behind the first").isGreaterThan(first);
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
        })).isInstanceOf(CentralCall.IgnoredFailure.class);
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
}
