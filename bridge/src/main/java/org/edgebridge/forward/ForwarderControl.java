package org.edgebridge.forward;

import io.github.resilience4j.bulkhead.BulkheadRegistry;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.ratelimiter.RateLimiterRegistry;

/** What the admin side reads of the forwarder (status, the guards' registries for metrics) and does (pause, resume). */
public interface ForwarderControl {
    ForwarderStatus status();

    /** Stops sending until {@link #resume()}; a request under way finishes. */
    void pause();

    /** Sends again at once, also ending a pause caused by central's 401/403/4xx and any backoff. */
    void resume();

    CircuitBreakerRegistry circuitBreakers();

    RateLimiterRegistry rateLimiters();

    BulkheadRegistry bulkheads();
}
