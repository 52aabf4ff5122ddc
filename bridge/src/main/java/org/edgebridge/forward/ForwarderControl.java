package org.edgebridge.forward;

import io.github.resilience4j.bulkhead.BulkheadRegistry;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.ratelimiter.RateLimiterRegistry;
import java.time.Instant;
import java.util.Optional;

/** What the admin side reads of the forwarder (status, the guards' registries for metrics) and does (pause, resume). */
public interface ForwarderControl {
    ForwarderStatus status();

    /** The bytes exchanged with central since start (for the data budget). */
    WireBytes wireBytes();

    /** Stops sending until {@link #resume()}; a request under way finishes. */
    void pause();

    /** Sends again at once, also ending a pause caused by central's 401/403/4xx and any backoff. */
    void resume();

    /**
     * Ends every wait now: the backoff, central's Retry-After, a pause by central's 4xx/3xx, the circuit
     * breaker's open time (it lets one probe through at once) and every pending event's own wait (a receipt's
     * retryAfterMs, the per-event backoff). An admin's own pause stays. @return what it ended
     */
    RetryNow retryNow();

    /**
     * What {@link #retryNow()} ended: the request wait it cleared (if any), whether the breaker was open, events made
     * due.
     */
    record RetryNow(Optional<Instant> requestWaitUntil, boolean breakerWasOpen, int eventsMadeDue) {}

    CircuitBreakerRegistry circuitBreakers();

    RateLimiterRegistry rateLimiters();

    BulkheadRegistry bulkheads();
}
