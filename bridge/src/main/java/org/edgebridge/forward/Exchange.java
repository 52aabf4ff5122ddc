package org.edgebridge.forward;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.edgebridge.outbox.ClaimedEvent;
import org.edgebridge.outbox.SentRequest;
import org.jspecify.annotations.Nullable;

/**
 * The requests of one step (docs/forwarding.md, "Blame"): the probe, then the comparison, each settled by its outcome;
 * the probe's failure proven or not by the comparison ({@link Suspicions}); and what the step says of central to the
 * policy (answered if any request was, else failed) and to the circuit breaker (the main request's outcome, and no
 * connection at all; a probe's failure never). The probe goes apart ({@link ProbeSlot}) and the step waits for it
 * at most {@link #PROBE_GRACE}: a step holds the forwarder at most {@code ingest.timeout} plus that. A probe done
 * later is taken by a later step ({@link #collectProbe}). Runs on the step's thread.
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
    private final Duration quietFor;
    private final ProbeSlot probes;
    private final Duration carryFor;
    private final List<Carried> carried = new ArrayList<>(); // guarded by itself

    /**
     * @param quietFor how long central must have answered nothing before a probe's failure counts for the breaker
     *     ({@code forwarder.breakerOpenFor})
     */
    Exchange(
            BatchSender sender,
            BatchSettler settler,
            Suspicions suspicions,
            ForwarderPolicy policy,
            CentralCall call,
            CentralFailureRate failureRate,
            ClaimedAhead claimedAhead,
            Clock clock,
            Duration quietFor,
            ProbeSlot probes,
            Duration carryFor) {
        this.carryFor = carryFor;
        this.quietFor = quietFor;
        this.probes = probes;
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

        @Nullable
        String stopped;

        void failed(RequestOutcome.Failed f, boolean recordedByBreaker) {
            failure = f;
            recorded |= recordedByBreaker;
        }
    }

    /**
     * How long a step waits for a probe sent apart before it sends the main request without the probe's outcome: long
     * enough for central's usual answer, so that the main request proves the probe's failure in the same step.
     */
    static final Duration PROBE_GRACE = Duration.ofSeconds(1);

    /**
     * A probe sent apart that was done only after its step's main request went, and failed in a way one event may
     * cause: its events stay in flight until a main request sent after that proves it or not.
     */
    private record Carried(ProbeSlot.Done probe, RequestOutcome.Failed failure, Instant since) {}

    /**
     * Takes the probe sent apart by an earlier step once it is done: an answer (or a 429, no connection, ...) is
     * settled now; a failure one event may cause waits for the next main request, its proof ({@link #run}), at most
     * {@code carryFor} ({@link #releaseUnprovenCarried}).
     */
    void collectProbe() {
        Optional<ProbeSlot.Done> done = probes.takeDone();
        if (done.isEmpty()) {
            return;
        }
        RequestOutcome o = done.get().done().outcome();
        if (o instanceof RequestOutcome.Failed f && f.mayBeOneEvent()) {
            synchronized (carried) {
                carried.add(new Carried(done.get(), f, clock.instant()));
            }
            return;
        }
        Verdict verdict = new Verdict();
        settled(done.get().done().request(), done.get().events(), o, false, CentralCall.Failures.IGNORED, verdict);
        conclude(verdict);
    }

    /** Probe failures that waited {@code carryFor} and no main request went: released, not counted. */
    void releaseUnprovenCarried() {
        Instant due = clock.instant().minus(carryFor);
        List<Carried> stale = new ArrayList<>();
        synchronized (carried) {
            carried.removeIf(c -> !c.since().isAfter(due) && stale.add(c));
        }
        stale.forEach(c -> resolve(c, false, false));
    }

    /** The forwarder stops: probe failures still waiting for proof are released (maybe sent), not counted. */
    void releaseCarried() {
        takeCarried().forEach(c -> resolve(c, false, true));
    }

    private List<Carried> takeCarried() {
        synchronized (carried) {
            List<Carried> all = List.copyOf(carried);
            carried.clear();
            return all;
        }
    }

    /**
     * Whether a probe of several events is out (under way, or failed and waiting for its proof): a group is being
     * narrowed, and a suspect alone waits rather than take the slot the group's next probe needs.
     */
    boolean groupProbeOut() {
        if (probes.eventsOut() > 1) {
            return true;
        }
        synchronized (carried) {
            return carried.stream().anyMatch(c -> c.probe().events().size() > 1);
        }
    }

    /** Whether a probe may be sent in this step (none is under way or waiting to be taken). */
    boolean probeSlotFree() {
        return !probes.busy();
    }

    /** Sends the plan's requests and settles them. @return the events sent */
    int run(String claimId, Suspicions.Plan plan) {
        Verdict verdict = new Verdict();
        // taken before this step's main request, which is sent after they failed: its answer proves them or not
        List<Carried> earlier = plan.comparisonIsMain() ? takeCarried() : List.of();
        RequestOutcome.@Nullable Failed probeFailed = null;
        SentRequest probeBatch = SentRequest.unmeasured(BatchIds.next());
        Optional<CentralCall.Done> probeDone = Optional.empty();
        if (!plan.probe().isEmpty()) {
            // sent apart: if central hangs on it, the main request goes after PROBE_GRACE and the steps go on
            String probeId = probeBatch.batchId();
            List<ClaimedEvent> probe = plan.probe();
            probes.send(probe, () -> sender.send(probeId, probe, CentralCall.Failures.IGNORED));
            probeDone = probes.awaitDone(PROBE_GRACE).map(ProbeSlot.Done::done);
        }
        boolean probeAnswered = false;
        if (probeDone.isPresent()) {
            probeBatch = probeDone.get().request();
            RequestOutcome o = probeDone.get().outcome();
            if (o instanceof RequestOutcome.Failed f && f.mayBeOneEvent()) {
                probeFailed = f; // kept in flight until the comparison says whose failure it was
            } else if (!settled(probeBatch, plan.probe(), o, false, CentralCall.Failures.IGNORED, verdict)) {
                settler.releaseUnsent(
                        SentRequest.unmeasured(claimId), plan.comparison(), "not sent: " + verdict.stopped);
                earlier.forEach(c -> resolve(c, false, true));
                conclude(verdict);
                return plan.probe().size();
            } else {
                probeAnswered = o instanceof RequestOutcome.Answered a && a.answersEvents();
            }
        }
        boolean comparisonSent = false;
        List<ClaimedEvent> comparison = plan.comparison();
        if (probeDone.isPresent() && probeFailed == null && !plan.comparisonIsMain() && !comparison.isEmpty()) {
            // the probe was answered: nothing to prove, and the group's next device is probed apart in the next step
            // rather than sent here, where a hang would hold the step
            settler.releaseUnsent(
                    SentRequest.unmeasured(claimId),
                    comparison,
                    "held back: its group is looked into one device at a time");
            comparison = List.of();
        }
        if (!comparison.isEmpty()) {
            CentralCall.Failures failures =
                    plan.comparisonIsMain() ? CentralCall.Failures.RECORDED : CentralCall.Failures.IGNORED;
            CentralCall.Done done = sender.send(BatchIds.next(), plan.comparison(), failures);
            SentRequest batchId = done.request();
            RequestOutcome o = done.outcome();
            comparisonSent = true;
            boolean proof = o instanceof RequestOutcome.Answered a && a.answersEvents();
            // the probes' failures first: their events are pending again before the main request's settle claims the
            // next batch, so that a narrowed group's next probe can go in the very next step
            probeFailures(plan, probeBatch, probeFailed, earlier, proof, probeAnswered, true, verdict);
            if (o instanceof RequestOutcome.Failed f && f.mayBeOneEvent()) {
                settler.release(batchId, plan.comparison(), f.reason());
                if (plan.comparisonIsMain()) {
                    suspicions.failedTogether(plan.comparison(), clock.instant());
                    failureRate.failed();
                } else {
                    // the group's other half failed on its own (the probe failed too, or is still under way): a group
                    // of its own, looked into apart, so that a poison in each half cannot hide the other
                    suspicions.bothHalvesFailed(plan.probe(), plan.comparison(), clock.instant());
                }
                verdict.failed(f, plan.comparisonIsMain());
            } else {
                settled(batchId, plan.comparison(), o, plan.comparisonIsMain(), failures, verdict);
            }
        } else {
            probeFailures(plan, probeBatch, probeFailed, earlier, false, probeAnswered, false, verdict);
        }
        conclude(verdict);
        return plan.probe().size() + (comparisonSent ? plan.comparison().size() : 0);
    }

    /**
     * Settles this step's probe failure and those carried from earlier steps, proven or not by {@code proof} (the
     * comparison, sent after them, answered events; the carried ones are also proven by this step's probe answered).
     */
    private void probeFailures(
            Suspicions.Plan plan,
            SentRequest probeBatch,
            RequestOutcome.@Nullable Failed probeFailed,
            List<Carried> earlier,
            boolean proof,
            boolean probeAnswered,
            boolean comparisonSent,
            Verdict verdict) {
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
        for (Carried c : earlier) {
            Verdict own = resolve(c, proof || probeAnswered, true);
            if (!verdict.answered && own.failure != null && verdict.failure == null) {
                verdict.failed(own.failure, false);
            }
        }
    }

    /**
     * Settles a probe failure carried from an earlier step: proven when a request sent after it failed, holding none of
     * its events, got a final receipt. @return what it says of central (a failure when unproven, unless a proven
     * suspect went with no other request); concluded here when {@code anySent} is false (no step verdict takes it)
     *
     * @param proof a request sent after the failure answered events
     * @param anySent a request was sent after the failure
     */
    private Verdict resolve(Carried c, boolean proof, boolean anySent) {
        List<ClaimedEvent> events = c.probe().events();
        SentRequest request = c.probe().done().request();
        Verdict own = new Verdict();
        if (proof) {
            settler.settle(request, suspicions.proven(events, c.failure(), clock.instant()));
            return own;
        }
        settler.settle(request, suspicions.unproven(events, c.failure(), clock.instant()));
        if (anySent || !Suspicions.provenSuspect(events)) {
            own.failed(c.failure(), false);
        }
        if (!anySent) {
            conclude(own);
        }
        return own;
    }

    /**
     * Settles an outcome other than a failure one event may cause. @return false when no further request may go in this
     * step (429, central refusing the bridge, no connection, no token, breaker open)
     */
    private boolean settled(
            SentRequest batchId,
            List<ClaimedEvent> events,
            RequestOutcome o,
            boolean main,
            CentralCall.Failures failures,
            Verdict verdict) {
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
        } else if (o
                instanceof RequestOutcome.Failed f) { // no connection: central's or the network's, never one event's
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
            // probe's only while central has answered nothing for quietFor: a probe looks for an event, and counted
            // while
            // other events were answered it opened the breaker for every device whenever two poisons took turns
            // (BlameCasesIT); a central that answers nothing at all still opens it (CentralDownIT)
            Instant quietSince = clock.instant().minus(quietFor);
            boolean centralQuiet =
                    policy.lastSuccessAt().map(at -> at.isBefore(quietSince)).orElse(true);
            if (!verdict.recorded && (verdict.centralsOwn || centralQuiet)) {
                call.recordFailure(failure.reason());
            }
        }
    }
}
