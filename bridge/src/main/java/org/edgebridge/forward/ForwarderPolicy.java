package org.edgebridge.forward;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When the forwarder may send (docs/forwarding.md): paused by an admin, paused by central's 401/403/4xx or 3xx,
 * backing off after failed requests, or held by the circuit breaker. Every decision reads the injected clock; the
 * waiting itself is the loop's ({@link ForwarderLoop}). The circuit breaker records each request's result itself
 * ({@link CentralCall}); this policy only turns it from open to half-open once {@code forwarder.breakerOpenFor} has
 * passed on the clock, before anything is claimed, so that nothing is claimed while it is open.
 *
 * <p>Thread-safe: the forwarder workers record outcomes, an admin pauses and resumes from any thread.
 */
final class ForwarderPolicy {
    private static final Logger LOG = LoggerFactory.getLogger(ForwarderPolicy.class);

    private final ForwarderSettings settings;
    private final Clock clock;
    private final CircuitBreaker breaker;
    private final RequestBackoff requestBackoff;

    private volatile ForwarderState state = ForwarderState.IDLE;
    private volatile boolean pausedByAdmin;
    private volatile @Nullable Instant pausedUntil;
    private volatile @Nullable String pauseReason;
    private volatile boolean pausedByRedirect;
    private volatile Instant backoffUntil = Instant.EPOCH;
    private volatile Instant breakerOpenedAt = Instant.EPOCH;
    private volatile @Nullable Instant lastSuccessAt;
    private volatile @Nullable String lastError;
    private volatile @Nullable Instant lastErrorAt;
    private final AtomicInteger consecutiveFailures = new AtomicInteger();

    ForwarderPolicy(ForwarderSettings settings, Clock clock, CircuitBreaker breaker) {
        this.settings = settings;
        this.clock = clock;
        this.breaker = breaker;
        this.requestBackoff = new RequestBackoff(
                settings.retries().backoff().initial(),
                settings.retries().backoff().max());
        breaker.getEventPublisher().onStateTransition(e -> {
            if (e.getStateTransition().getToState() == CircuitBreaker.State.OPEN) {
                breakerOpenedAt = clock.instant();
            }
            LOG.warn("circuit breaker to central: {}", e.getStateTransition());
        });
    }

    /**
     * Why no request may start now, as the step's result, or empty when one may. Turns an open breaker half-open
     * once it has been open for {@code forwarder.breakerOpenFor}.
     */
    Optional<StepResult> holdBack() {
        Instant now = clock.instant();
        if (pausedByAdmin) {
            state = ForwarderState.PAUSED_BY_ADMIN;
            return Optional.of(new StepResult.Idle(ForwarderState.PAUSED_BY_ADMIN, ForwarderWaits.IDLE_POLL));
        }
        Instant until = pausedUntil;
        if (until != null && now.isBefore(until)) {
            return held(
                    pausedByRedirect ? ForwarderState.REDIRECTED_BY_CENTRAL : ForwarderState.PAUSED_BY_CENTRAL,
                    Duration.between(now, until));
        }
        Instant backoffEnds = backoffUntil;
        if (now.isBefore(backoffEnds)) {
            return held(ForwarderState.BACKING_OFF, Duration.between(now, backoffEnds));
        }
        if (breaker.getState() == CircuitBreaker.State.OPEN) {
            Duration left = Duration.between(
                    now, breakerOpenedAt.plus(settings.breaker().openFor()));
            if (left.isNegative() || left.isZero()) {
                halfOpen();
            } else {
                return held(
                        ForwarderState.BREAKER_OPEN,
                        left.compareTo(ForwarderWaits.BREAKER_POLL) < 0 ? left : ForwarderWaits.BREAKER_POLL);
            }
        }
        return Optional.empty();
    }

    private Optional<StepResult> held(ForwarderState why, Duration wait) {
        state = why;
        return Optional.of(new StepResult.Held(why, wait));
    }

    private synchronized void halfOpen() {
        if (breaker.getState() == CircuitBreaker.State.OPEN) {
            breaker.transitionToHalfOpenState();
        }
    }

    /** The wait after a request: none while the breaker is closed, else a look at it again soon. */
    Duration afterRequest() {
        return breaker.getState() == CircuitBreaker.State.CLOSED ? Duration.ZERO : ForwarderWaits.BREAKER_POLL;
    }

    void enter(ForwarderState now) {
        state = now;
    }

    /** Stops sending until {@link #resume()}; a request under way finishes. */
    void pause() {
        if (!pausedByAdmin) {
            LOG.info("forwarder paused by an admin");
        }
        pausedByAdmin = true;
    }

    /** Sends again at once, also ending a pause caused by central's 401/403/4xx and any backoff. */
    void resume() {
        if (pausedByAdmin || pausedUntil != null) {
            LOG.info("forwarder resumed by an admin");
        }
        pausedByAdmin = false;
        clearPause();
        backoffUntil = Instant.EPOCH;
    }

    /**
     * An admin ends every wait of the forwarder's own ({@link ForwarderControl#retryNow()}): the backoff and
     * Retry-After, a pause by central, and the breaker's open time (half-open: one probe at once).
     * @return whether the breaker was open
     */
    boolean endWaits() {
        LOG.info(
                "every wait ended by an admin (was {}; next attempt was {})",
                state.statusName(),
                nextAttemptAt().orElse(null));
        clearPause();
        backoffUntil = Instant.EPOCH;
        if (breaker.getState() == CircuitBreaker.State.OPEN) {
            halfOpen();
            return true;
        }
        return false;
    }

    /** Central answered (2xx, or a 400/413/422 that splits the batch). */
    void answered() {
        int failures = consecutiveFailures.getAndSet(0);
        if (failures > 0 || pausedUntil != null) {
            LOG.info("central answers again after {} failed requests", failures);
        }
        clearPause();
        lastSuccessAt = clock.instant();
    }

    /** 429: wait central's Retry-After, or the backoff when it gave none (zero). */
    void throttled(Duration retryAfter, String reason) {
        int failures = consecutiveFailures.incrementAndGet();
        backoffUntil = clock.instant().plus(retryAfter.isZero() ? backoff(failures) : retryAfter);
        failure(reason);
    }

    /** A step whose requests all failed (5xx, timeout, no connection, ...): back off. */
    void failed(String reason) {
        failed(reason, Duration.ZERO);
    }

    /** {@link #failed(String)}, waiting at least central's Retry-After (a 503's). */
    void failed(String reason, Duration retryAfter) {
        int failures = consecutiveFailures.incrementAndGet();
        backOff(failures);
        Instant asked = clock.instant().plus(retryAfter);
        if (asked.isAfter(backoffUntil)) {
            backoffUntil = asked;
        }
        failure(reason);
    }

    /** No token from {@code ingest.oauth2.tokenUrl}: the backoff of its failures in a row; central's count stays. */
    void noToken(String reason, int failuresInARow) {
        backOff(failuresInARow);
        failure(reason);
    }

    /** The backoff after {@code failures} in a row, unless a longer wait is already set. */
    private void backOff(int failures) {
        Instant until = clock.instant().plus(backoff(failures));
        if (until.isAfter(backoffUntil)) {
            backoffUntil = until;
        }
    }

    /** 401, 403, 404, another 4xx or a 3xx: paused, tried again every {@code forwarder.authRetryInterval}. */
    void refused(String reason, boolean redirect) {
        if (pausedUntil == null) {
            LOG.error(
                    "central refused the bridge ({}): forwarding paused, retried every {} s; check ingest.url and "
                            + "ingest.token",
                    reason,
                    settings.retries().authRetryInterval().toSeconds());
        }
        pausedUntil = clock.instant().plus(settings.retries().authRetryInterval());
        pauseReason = reason;
        pausedByRedirect = redirect;
        failure(reason);
    }

    /** Not paused and not backing off: the rest of a split batch may still be sent. */
    boolean stillSending() {
        Instant now = clock.instant();
        Instant paused = pausedUntil;
        return (paused == null || !now.isBefore(paused)) && !now.isBefore(backoffUntil);
    }

    /** The wait after the n-th failed request in a row ({@link RequestBackoff}). */
    Duration backoff(int failures) {
        return requestBackoff.after(failures);
    }

    private void clearPause() {
        pausedUntil = null;
        pauseReason = null;
        pausedByRedirect = false;
    }

    private void failure(String reason) {
        if (lastError == null || !lastError.equals(reason)) {
            LOG.warn("request to central failed: {}", reason);
        }
        lastError = reason;
        lastErrorAt = clock.instant();
    }

    ForwarderState state() {
        return state;
    }

    boolean pausedByAdmin() {
        return pausedByAdmin;
    }

    Optional<String> pauseReason() {
        return Optional.ofNullable(pauseReason);
    }

    /**
     * When the next request may go: the end of a pause by central, of the backoff (or Retry-After), or of the
     * breaker's open time, whichever is last, if one is under way.
     */
    Optional<Instant> nextAttemptAt() {
        Instant until = pausedUntil;
        Instant now = clock.instant();
        Instant next = until != null ? until : backoffUntil;
        if (breaker.getState() == CircuitBreaker.State.OPEN) {
            Instant breakerEnds = breakerOpenedAt.plus(settings.breaker().openFor());
            next = breakerEnds.isAfter(next) ? breakerEnds : next;
        }
        return Optional.ofNullable(next.isAfter(now) ? next : null);
    }

    Optional<Instant> lastSuccessAt() {
        return Optional.ofNullable(lastSuccessAt);
    }

    Optional<String> lastError() {
        return Optional.ofNullable(lastError);
    }

    Optional<Instant> lastErrorAt() {
        return Optional.ofNullable(lastErrorAt);
    }

    int consecutiveFailures() {
        return consecutiveFailures.get();
    }
}
