package org.edgebridge.forward;

import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import io.github.resilience4j.bulkhead.BulkheadRegistry;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.RateLimiterRegistry;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import java.time.Clock;
import java.time.Duration;

/**
 * The Resilience4j guards around requests to central, built from the settings: a circuit breaker, a rate
 * limiter for requests and one for events, and a bulkhead. Thread-safe (each guard is).
 */
final class CentralGuards {
    final CircuitBreakerRegistry breakers = CircuitBreakerRegistry.ofDefaults();
    final RateLimiterRegistry limiters = RateLimiterRegistry.ofDefaults();
    final BulkheadRegistry bulkheads = BulkheadRegistry.ofDefaults();
    final CircuitBreaker breaker;
    final AtomicRateLimiter requests;
    final RateLimiter events;
    final Bulkhead bulkhead;

    /** @param clock the circuit breaker's: how long it has been open ({@link ForwarderPolicy} half-opens it) */
    CentralGuards(ForwarderSettings settings, Clock clock) {
        this.breaker = breakers.circuitBreaker(
                "central",
                CircuitBreakerConfig.custom()
                        .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                        .slidingWindowSize(20)
                        .minimumNumberOfCalls(5)
                        .failureRateThreshold(settings.breaker().failureRate())
                        .slowCallDurationThreshold(settings.requests().timeout())
                        .slowCallRateThreshold(100)
                        .waitDurationInOpenState(settings.breaker().openFor())
                        .permittedNumberOfCallsInHalfOpenState(1)
                        // the breaker owns its permit: calls go through executeSupplier, which records each result
                        // (CentralCall.Sent) as a failure or a success and releases the permit whatever happens
                        .recordResult(result -> result instanceof CentralCall.Sent sent && sent.isFailure())
                        .ignoreExceptions(CentralCall.IgnoredFailure.class)
                        // OPEN turns HALF_OPEN when ForwarderPolicy sees breakerOpenFor passed on this clock, before it
                        // claims anything: the forwarder sees OPEN and waits without claiming
                        .clock(clock)
                        .build());
        this.requests = evenlySpaced("central-requests", settings.requests().perSecond());
        this.events = limiter(
                "central-events",
                settings.batching().eventsPerSecond(),
                settings.batching().limit());
        this.bulkhead = bulkheads.bulkhead(
                "central",
                BulkheadConfig.custom()
                        .maxConcurrentCalls(settings.requests().maxConcurrent())
                        .maxWaitDuration(Duration.ZERO)
                        .build());
    }

    /**
     * A limiter of one permit every {@code 1/perSecond}: requests evenly spaced, so that a busy forwarder's next batch
     * waits at most one spacing for its request, and an idle one has its permit at once. (Two permits per tenth of a
     * second, as before, made the third request of a tenth wait for the next tenth: docs/BENCHMARKS.md "Where
     * publish → final goes".)
     */
    private AtomicRateLimiter evenlySpaced(String name, int perSecond) {
        return (AtomicRateLimiter) limiters.rateLimiter(
                name,
                RateLimiterConfig.custom()
                        .limitForPeriod(1)
                        .limitRefreshPeriod(Duration.ofNanos(1_000_000_000L / perSecond))
                        .timeoutDuration(Duration.ofDays(1))
                        .build());
    }

    /**
     * How long until the requests limiter has a permit (zero: now). The forwarder waits this long <em>before</em> it
     * claims, so that the batch takes every row that came meanwhile instead of leaving them to the next request, and
     * a settle claims the next batch ahead only when this is short ({@link ClaimedAhead}).
     *
     * <p>The public {@link RateLimiter.Metrics} tell how many permits are left, not when the next one comes; only
     * Resilience4j's {@link AtomicRateLimiter} does. The registry builds that one, and {@link #evenlySpaced} keeps it
     * by that type (a start fails, rather than this quietly answering "now", if it ever built another).
     */
    Duration untilRequestPermit() {
        return Duration.ofNanos(Math.max(0, requests.getDetailedMetrics().getNanosToWait()));
    }

    /**
     * A limiter of {@code perSecond} events whose every refresh holds one whole batch ({@code batchLimit}, at most a
     * second's worth; at least a tenth of the rate). A request reserves its events from the refreshes to come, and a
     * refresh that passes while a request is on its way is lost: Resilience4j does not carry unused permits over. With
     * a tenth of the rate per refresh, as before, a batch of 500 at 2,000 events/s needed 2.5 refreshes and lost about
     * 1.5 of them during its request: a backlog drained well below the rate (B5, docs/BENCHMARKS.md).
     * With a batch per refresh a request that takes less than one refresh loses nothing, and a backlog drains at the
     * rate. In any one-second window at most the rate plus one batch passes, as it did.
     */
    private RateLimiter limiter(String name, int perSecond, int batchLimit) {
        int perRefresh = Math.max((perSecond + 9) / 10, Math.min(batchLimit, perSecond));
        long refreshNanos = perRefresh * 1_000_000_000L / perSecond;
        return limiters.rateLimiter(
                name,
                RateLimiterConfig.custom()
                        .limitForPeriod(perRefresh)
                        .limitRefreshPeriod(Duration.ofNanos(refreshNanos))
                        .timeoutDuration(Duration.ofDays(1))
                        .build());
    }

    /** Reserves one request and {@code eventCount} events. @return nanoseconds to wait before sending */
    long reserve(int eventCount) {
        long forRequest = requests.reservePermission(1);
        return eventCount == 0 ? forRequest : Math.max(forRequest, events.reservePermission(eventCount));
    }
}
