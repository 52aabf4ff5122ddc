package org.edgebridge.forward;

import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import java.util.List;
import java.time.Duration;
import org.edgebridge.outbox.ClaimedEvent;
import org.edgebridge.trace.CommandTrace;

/**
 * One request to central through the guards: the rate limiters' permits first, then the HTTP call and the
 * classification of its reply inside the circuit breaker ({@code executeSupplier}), which takes its own permit,
 * records the result (see {@link Sent#isFailure()}) and releases the permit however the call ends. Thread-safe.
 */
final class CentralCall {
    /** A reply and what it means; what the circuit breaker records. */
    record Sent(IngestReply reply, RequestOutcome outcome) {
        /** 5xx, timeouts, refused connections, unreadable 200s and 503s count against central; 429s do not. */
        boolean isFailure() {
            return outcome instanceof RequestOutcome.Failed
                    || (outcome instanceof RequestOutcome.Throttled && reply.status() == 503);
        }
    }

    private final ForwarderSettings settings;
    private final CentralGuards guards;
    private final IngestClient client;
    private final ReplyClassifier classifier;
    private final ReceiptViolations violations;

    CentralCall(ForwarderSettings settings, CentralGuards guards, IngestClient client, ReplyClassifier classifier,
            ReceiptViolations violations) {
        this.settings = settings;
        this.violations = violations;
        this.guards = guards;
        this.client = client;
        this.classifier = classifier;
    }

    /**
     * A failed request of a bisection ({@link ServerErrorHunt}), which the circuit breaker ignores (Resilience4j
     * {@code ignoreExceptions}: the permit is released, nothing is recorded). The failure that started the bisection
     * is recorded; the requests that look for the event behind it would otherwise open the breaker for every device,
     * the opposite of what the bisection is for. A round stops as soon as both halves fail, so a central that is
     * really down still gets its failures recorded, one per round.
     */
    static final class IgnoredFailure extends RuntimeException {
        final transient Sent sent;

        IgnoredFailure(Sent sent) {
            super("a request of a bisection failed", null, false, false);
            this.sent = sent;
        }
    }

    /**
     * Waits for the rate limiters (through {@code rateLimitWait}), then sends.
     *
     * @param ignoreFailure true for the requests of a bisection: a failure is not recorded by the circuit breaker
     * @return the outcome; {@link RequestOutcome.NotPermitted} when the circuit breaker refused the call
     */
    RequestOutcome send(String batchId, List<ClaimedEvent> events, ForwarderLoop.Sleeper rateLimitWait, boolean ignoreFailure) {
        long wait = guards.reserve(events.size());
        if (wait > 0) {
            rateLimitWait.sleep(Duration.ofNanos(wait));
        }
        byte[] body = IngestRequest.body(settings.edgeId(), batchId, events);
        try {
            return guards.breaker.executeSupplier(() -> {
                CommandTrace.mark(CommandTrace.Step.REQUEST_SENT, events, ClaimedEvent::id);
                IngestReply reply = client.post(batchId, body);
                CommandTrace.mark(CommandTrace.Step.ANSWERED, events, ClaimedEvent::id);
                Sent sent = new Sent(reply, classifier.classify(reply, events));
                if (sent.outcome() instanceof RequestOutcome.Answered answered) {
                    violations.record(answered.problems(), events.size());
                }
                if (ignoreFailure && sent.isFailure()) {
                    throw new IgnoredFailure(sent);
                }
                return sent;
            }).outcome();
        } catch (IgnoredFailure e) {
            return e.sent.outcome();
        } catch (CallNotPermittedException e) {
            return new RequestOutcome.NotPermitted("circuit breaker " + guards.breaker.getState().name().toLowerCase());
        }
    }
}
