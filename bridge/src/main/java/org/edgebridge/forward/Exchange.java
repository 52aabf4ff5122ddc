package org.edgebridge.forward;

import java.time.Clock;
import java.util.List;
import org.edgebridge.outbox.ClaimedEvent;
import org.edgebridge.outbox.SentRequest;
import org.jspecify.annotations.Nullable;

/**
 * The requests of one step (docs/forwarding.md, "Blame"): the probe, then the comparison, each settled by its outcome;
 * the probe's failure proven or not by the comparison ({@link Suspicions}); and what the step says of central to the
 * policy (answered if any request was, else failed) and to the circuit breaker (the main request's outcome, and no
 * connection at all; a probe's failure never). At most two requests, so a step holds the
 * forwarder for at most two {@code ingest.timeout}. Runs on the step's thread.
 */
final class Exchange {
    private final BatchSender sender;
    private final BatchSettler settler;
    private final Suspicions suspicions;
    private final ForwarderPolicy policy;
    private final CentralCall call;
    private final CentralFailureRate failureRate;
    private final ClaimedAhead claimedAhead;
    private final Clock clock;
    private final java.time.Duration quietFor;

    /**
     * @param quietFor how long central must have answered nothing before a probe's failure counts for the breaker
     *     ({@code forwarder.breakerOpenFor})
     */
    Exchange(BatchSender sender, BatchSettler settler, Suspicions suspicions, ForwarderPolicy policy, CentralCall call,
            CentralFailureRate failureRate, ClaimedAhead claimedAhead, Clock clock, java.time.Duration quietFor) {
        this.quietFor = quietFor;
        this.sender = sender;
        this.settler = settler;
        this.suspicions = suspicions;
        this.policy = policy;
        this.call = call;
        this.failureRate = failureRate;
        this.claimedAhead = claimedAhead;
        this.clock = clock;
    }

    /** What the step concludes of central. */
    private static final class Verdict {
        boolean answered;
        RequestOutcome.@Nullable Failed failure;
        boolean recorded;
        /** A failure no event can cause (no connection) that the breaker has not recorded yet. */
        boolean centralsOwn;
        @Nullable String stopped;

        void failed(RequestOutcome.Failed f, boolean recordedByBreaker) {
            failure = f;
            recorded |= recordedByBreaker;
        }
    }

    /** Sends the plan's requests and settles them. @return the events sent */
    int run(String claimId, Suspicions.Plan plan) {
        Verdict verdict = new Verdict();
        RequestOutcome.@Nullable Failed probeFailed = null;
        SentRequest probeBatch = SentRequest.unmeasured(BatchIds.next());
        if (!plan.probe().isEmpty()) {
            CentralCall.Done done = sender.send(probeBatch.batchId(), plan.probe(), CentralCall.Failures.IGNORED);
            probeBatch = done.request();
            RequestOutcome o = done.outcome();
            if (o instanceof RequestOutcome.Failed f && f.mayBeOneEvent()) {
                probeFailed = f; // kept in flight until the comparison says whose failure it was
            } else if (!settled(probeBatch, plan.probe(), o, false, CentralCall.Failures.IGNORED, verdict)) {
                settler.releaseUnsent(SentRequest.unmeasured(claimId), plan.comparison(), "not sent: " + verdict.stopped);
                conclude(verdict);
                return plan.probe().size();
            }
        }
        boolean proof = false;
        boolean comparisonSent = false;
        if (!plan.comparison().isEmpty()) {
            CentralCall.Failures failures = plan.comparisonIsMain() ? CentralCall.Failures.RECORDED : CentralCall.Failures.IGNORED;
            CentralCall.Done done = sender.send(BatchIds.next(), plan.comparison(), failures);
            SentRequest batchId = done.request();
            RequestOutcome o = done.outcome();
            comparisonSent = true;
            if (o instanceof RequestOutcome.Answered a) {
                proof = a.answersEvents();
            }
            if (o instanceof RequestOutcome.Failed f && f.mayBeOneEvent()) {
                settler.release(batchId, plan.comparison(), f.reason());
                if (plan.comparisonIsMain()) {
                    suspicions.failedTogether(plan.comparison(), clock.instant());
                    failureRate.failed();
                } else if (probeFailed != null) {
                    suspicions.bothHalvesFailed(plan.probe(), plan.comparison(), clock.instant());
                }
                verdict.failed(f, plan.comparisonIsMain());
            } else {
                settled(batchId, plan.comparison(), o, plan.comparisonIsMain(), failures, verdict);
            }
        }
        if (probeFailed != null) {
            if (proof) {
                settler.settle(probeBatch, suspicions.proven(plan.probe(), probeFailed, clock.instant()));
            } else {
                settler.settle(probeBatch, suspicions.unproven(plan.probe(), probeFailed, clock.instant()));
                // an event already proven to make central fail, sent alone again, says nothing of central
                if (comparisonSent || !Suspicions.provenSuspect(plan.probe())) {
                    verdict.failed(probeFailed, false);
                }
            }
        }
        conclude(verdict);
        return plan.probe().size() + (comparisonSent ? plan.comparison().size() : 0);
    }

    /**
     * Settles an outcome other than a failure one event may cause. @return false when no further request may go in this
     * step (429, central refusing the bridge, no connection, no token, breaker open)
     */
    private boolean settled(SentRequest batchId, List<ClaimedEvent> events, RequestOutcome o, boolean main,
            CentralCall.Failures failures, Verdict verdict) {
        if (o instanceof RequestOutcome.Answered a) {
            if (main && policy.stillSending()) {
                settler.settleAndClaimNext(batchId, a.settlements(), claimedAhead);
            } else {
                settler.settle(batchId, a.settlements());
            }
            suspicions.answered(events);
            verdict.answered = true;
            if (main) {
                failureRate.answered();
            }
            return true;
        }
        if (o instanceof RequestOutcome.Throttled t) {
            policy.throttled(t.retryAfter(), t.reason());
            settler.release(batchId, events, t.reason());
            verdict.stopped = t.reason();
        } else if (o instanceof RequestOutcome.Failed f) { // no connection: central's or the network's, never one event's
            settler.releaseUnsent(batchId, events, f.reason());
            verdict.failed(f, failures == CentralCall.Failures.RECORDED);
            verdict.centralsOwn = true;
            verdict.stopped = f.reason();
        } else if (o instanceof RequestOutcome.Refused r) {
            policy.refused(r.reason(), r.redirect());
            settler.release(batchId, events, r.reason());
            verdict.stopped = r.reason();
        } else if (o instanceof RequestOutcome.NoToken n) {
            policy.noToken(n.reason(), n.failuresInARow());
            settler.releaseUnsent(batchId, events, n.reason());
            verdict.stopped = n.reason();
        } else if (o instanceof RequestOutcome.NotPermitted n) {
            settler.releaseUnsent(batchId, events, "not sent: " + n.reason());
            verdict.stopped = n.reason();
        }
        return false;
    }

    /** Tells the policy (and, where no request recorded it, the breaker) what the step showed of central. */
    private void conclude(Verdict verdict) {
        RequestOutcome.Failed failure = verdict.failure;
        if (verdict.answered) {
            policy.answered();
        } else if (failure != null) {
            policy.failed(failure.reason(), failure.retryAfter());
            // the breaker counts the main requests' failures (CentralCall records them), central's own failures, and a
            // probe's only while central has answered nothing for quietFor: a probe looks for an event, and counted while
            // other events were answered it opened the breaker for every device whenever two poisons took turns
            // (BlameCasesIT); a central that answers nothing at all still opens it (CentralDownIT)
            java.time.Instant quietSince = clock.instant().minus(quietFor);
            boolean centralQuiet = policy.lastSuccessAt().map(at -> at.isBefore(quietSince)).orElse(true);
            if (!verdict.recorded && (verdict.centralsOwn || centralQuiet)) {
                call.recordFailure(failure.reason());
            }
        }
    }
}
