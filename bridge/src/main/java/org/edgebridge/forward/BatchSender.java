package org.edgebridge.forward;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.edgebridge.outbox.ClaimedEvent;
import org.jspecify.annotations.Nullable;

/**
 * Sends one request of claimed events through the guards ({@link CentralCall}) and counts it: requests, events that
 * reached central, events answered without a receipt. What the outcome means for the events is the step's
 * ({@link ForwardStep}). Thread-safe: the counters are shared by the workers.
 */
final class BatchSender {
    private final CentralCall call;
    private final ForwarderLoop.Sleeper rateLimitWait;
    private final Clock clock;
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong eventsSent = new AtomicLong();
    private final AtomicLong missingReceipts = new AtomicLong();
    private volatile @Nullable Instant lastMissingReceiptAt;

    /** @param rateLimitWait how the rate limiters' waits are waited (the loop's, or a test's clock) */
    BatchSender(CentralCall call, ForwarderLoop.Sleeper rateLimitWait, Clock clock) {
        this.call = call;
        this.rateLimitWait = rateLimitWait;
        this.clock = clock;
    }

    /**
     * @param failures what the circuit breaker records of this request's failure @return its outcome, status and
     *     duration
     */
    CentralCall.Done send(String batchId, List<ClaimedEvent> events, CentralCall.Failures failures) {
        CentralCall.Done done = call.exchange(batchId, events, rateLimitWait, failures);
        RequestOutcome outcome = done.outcome();
        if (!(outcome instanceof RequestOutcome.NotPermitted) && !(outcome instanceof RequestOutcome.NoToken)) {
            requests.incrementAndGet();
        }
        if (reachedCentral(outcome)) {
            eventsSent.addAndGet(events.size());
        }
        long missing = outcome instanceof RequestOutcome.Answered a
                ? a.count(ReceiptCheck.Violation.MISSING)
                : outcome instanceof RequestOutcome.Failed f && f.cause() == RequestOutcome.Cause.NO_RECEIPTS
                        ? (f.problems().isEmpty()
                                ? events.size()
                                : f.problems().stream()
                                        .filter(p -> p.kind() == ReceiptCheck.Violation.MISSING)
                                        .count())
                        : 0;
        if (missing > 0) {
            missingReceipts.addAndGet(missing);
            lastMissingReceiptAt = clock.instant();
        }
        return done;
    }

    /** Whether central received the request: it answered with an HTTP status (a timeout may or may not have). */
    private static boolean reachedCentral(RequestOutcome outcome) {
        return outcome instanceof RequestOutcome.Answered
                || outcome instanceof RequestOutcome.Throttled
                || outcome instanceof RequestOutcome.Refused
                || outcome instanceof RequestOutcome.Failed f && f.answeredWithStatus();
    }

    long requests() {
        return requests.get();
    }

    long eventsSent() {
        return eventsSent.get();
    }

    /** Events central answered without a receipt for, since start. */
    long missingReceipts() {
        return missingReceipts.get();
    }

    Optional<Instant> lastMissingReceiptAt() {
        return Optional.ofNullable(lastMissingReceiptAt);
    }
}
