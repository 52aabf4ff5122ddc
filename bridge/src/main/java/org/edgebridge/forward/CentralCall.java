package org.edgebridge.forward;

import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.edgebridge.forward.auth.TokenUnavailable;
import org.edgebridge.outbox.ClaimedEvent;
import org.edgebridge.outbox.Expiries;
import org.edgebridge.outbox.SentRequest;
import org.edgebridge.trace.CommandTrace;

/**
 * One request to central through the guards: the rate limiters' permits first, then the HTTP call and the
 * classification of its reply inside the circuit breaker ({@code executeSupplier}), which takes its own permit,
 * records the result (see {@link Sent#isFailure()}) and releases the permit however the call ends. Thread-safe.
 */
final class CentralCall {
    /** What came of one request: its outcome, and its id, HTTP status and duration for the events' timelines. */
    record Done(RequestOutcome outcome, SentRequest request) {}

    /** A reply and what it means; what the circuit breaker records. @param tookMs sent to reply read; -1 not sent */
    record Sent(IngestReply reply, RequestOutcome outcome, long tookMs) {
        /** A reply whose duration is not known. */
        Sent(IngestReply reply, RequestOutcome outcome) {
            this(reply, outcome, -1);
        }

        /**
         * 5xx (503 included), timeouts, refused connections and other failures count against central; 429s do not, and
         * neither does a 403 (central refusing the bridge pauses it; it is not central failing).
         */
        boolean isFailure() {
            return outcome instanceof RequestOutcome.Failed f && f.cause() != RequestOutcome.Cause.FORBIDDEN;
        }
    }

    private final ForwarderSettings settings;
    private final CentralGuards guards;
    private final IngestPort client;
    private final WireBytes wire;
    private final ReplyClassifier classifier;
    private final ReceiptViolations violations;
    private final RequestFigures figures;
    private final CentralAuthorization authorization;

    /** @param wire the bytes on the wire to central, counted per device as well (the data budget) */
    CentralCall(
            ForwarderSettings settings,
            CentralGuards guards,
            IngestPort client,
            ReplyClassifier classifier,
            ReceiptViolations violations,
            RequestFigures figures,
            CentralAuthorization authorization,
            WireBytes wire) {
        this.wire = wire;
        this.settings = settings;
        this.authorization = authorization;
        this.figures = figures;
        this.violations = violations;
        this.guards = guards;
        this.client = client;
        this.classifier = classifier;
    }

    /** What the circuit breaker records of a request's failure (a success is always recorded). */
    enum Failures {
        /** Every failure: a request of one event that is no suspect. */
        RECORDED,
        /** Not a failure one event may cause (a report of expired commands): only central's own failures. */
        ONE_EVENT_FAILURES_DEFERRED,
        /** None: a probe, or a group's other half; the step records one failure if it showed central failing. */
        IGNORED
    }

    /**
     * A failed request the circuit breaker ignores (Resilience4j {@code ignoreExceptions}: the permit is released,
     * nothing is recorded), see {@link Failures}. The requests that look for the event behind a failure would
     * otherwise open the breaker for every device, the opposite of what the probes are for; and a failure that
     * follows one event while central answers the others is no sign that central is down. A step that showed central
     * failing records one failure ({@link #recordFailure}), so a central that is really down still opens it.
     */
    static final class IgnoredFailure extends RuntimeException {
        final transient Sent sent;

        IgnoredFailure(Sent sent) {
            super("a probe failed", null, false, false);
            this.sent = sent;
        }
    }

    /**
     * Waits for the rate limiters (through {@code rateLimitWait}), then sends.
     *
     * @param failures which failures the circuit breaker records
     * @return the outcome; {@link RequestOutcome.NotPermitted} when the circuit breaker refused the call
     */
    RequestOutcome send(
            String batchId, List<ClaimedEvent> events, ForwarderLoop.Sleeper rateLimitWait, Failures failures) {
        return send(batchId, events, List.of(), rateLimitWait, failures);
    }

    /** {@link #send} of events and of commands that expired here, which central is told of (docs/protocol.md §2.1). */
    RequestOutcome send(
            String batchId,
            List<ClaimedEvent> events,
            List<Expiries.Expired> expired,
            ForwarderLoop.Sleeper rateLimitWait,
            Failures failures) {
        return exchange(batchId, events, expired, rateLimitWait, failures).outcome();
    }

    /** {@link #send}, with the request's HTTP status and duration. */
    Done exchange(String batchId, List<ClaimedEvent> events, ForwarderLoop.Sleeper rateLimitWait, Failures failures) {
        return exchange(batchId, events, List.of(), rateLimitWait, failures);
    }

    private Done exchange(
            String batchId,
            List<ClaimedEvent> events,
            List<Expiries.Expired> expired,
            ForwarderLoop.Sleeper rateLimitWait,
            Failures failures) {
        SentRequest unsent = SentRequest.unmeasured(batchId);
        long wait = guards.reserve(events.size());
        if (wait > 0) {
            rateLimitWait.sleep(Duration.ofNanos(wait));
        }
        byte[] body = IngestRequest.body(settings.central().edgeId(), batchId, events, expired);
        Optional<String> bearer;
        try {
            bearer = authorization.bearer();
        } catch (TokenUnavailable e) {
            return new Done(
                    new RequestOutcome.NoToken(Objects.requireNonNull(e.getMessage()), e.failuresInARow()), unsent);
        }
        Sent sent;
        try {
            sent = guards.breaker.executeSupplier(() -> {
                CommandTrace.mark(CommandTrace.Step.REQUEST_SENT, events, ClaimedEvent::id);
                long sentAt = System.nanoTime();
                IngestReply reply = client.post(batchId, body, bearer);
                wire.events(events);
                if (reply.status() == 401 && authorization.renewAfter401(bearer)) {
                    reply = client.post(batchId, body, renewed());
                }
                long tookMs = (System.nanoTime() - sentAt) / 1_000_000;
                figures.request(sentAt, events.size());
                CommandTrace.mark(CommandTrace.Step.ANSWERED, events, ClaimedEvent::id);
                Sent answer = new Sent(reply, classifier.classify(reply, events), tookMs);
                if (answer.outcome() instanceof RequestOutcome.Answered answered) {
                    violations.record(answered.problems(), events.size());
                } else if (answer.outcome() instanceof RequestOutcome.Failed f
                        && f.cause() == RequestOutcome.Cause.NO_RECEIPTS) {
                    violations.record(
                            !f.problems().isEmpty()
                                    ? f.problems()
                                    : events.stream()
                                            .map(e -> new ReceiptCheck.Problem(
                                                    ReceiptCheck.Violation.MISSING, e.id(), f.reason()))
                                            .toList(),
                            events.size());
                }
                if (answer.isFailure()
                        && (failures == Failures.IGNORED
                                || failures == Failures.ONE_EVENT_FAILURES_DEFERRED
                                        && answer.outcome() instanceof RequestOutcome.Failed f
                                        && f.mayBeOneEvent())) {
                    throw new IgnoredFailure(answer);
                }
                return answer;
            });
        } catch (IgnoredFailure e) {
            sent = e.sent;
        } catch (CallNotPermittedException e) {
            return new Done(
                    new RequestOutcome.NotPermitted("circuit breaker "
                            + guards.breaker.getState().name().toLowerCase()),
                    unsent);
        }
        return new Done(sent.outcome(), new SentRequest(batchId, sent.reply().status(), sent.tookMs()));
    }

    /**
     * The token after central's 401 to the one before. @throws IgnoredFailure (the breaker records nothing) with
     * {@link RequestOutcome.NoToken} when the token endpoint gives none
     */
    private Optional<String> renewed() {
        try {
            return authorization.bearer();
        } catch (TokenUnavailable e) {
            String reason = Objects.requireNonNull(e.getMessage()); // TokenUnavailable always has its reason
            throw new IgnoredFailure(new Sent(
                    IngestReply.transportFailure(reason), new RequestOutcome.NoToken(reason, e.failuresInARow())));
        }
    }

    /** One failure of central for the circuit breaker: a round whose requests it ignored found no single event. */
    void recordFailure(String reason) {
        guards.breaker.onError(0, TimeUnit.NANOSECONDS, new CentralFailed(reason));
    }

    /** What {@link #recordFailure} records. */
    static final class CentralFailed extends RuntimeException {
        CentralFailed(String reason) {
            super(reason, null, false, false);
        }
    }
}
