package org.edgebridge.forward;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.edgebridge.hook.TestHook;
import org.edgebridge.outbox.ClaimedEvent;
import org.edgebridge.outbox.Expiries;
import org.edgebridge.outbox.ForwarderOutbox;
import org.edgebridge.outbox.SentRequest;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One forwarder step, synchronous, a one-way chain: commit kept answers, republish finals that were never handed to the
 * broker, make final the commands that expired unsent ({@link ExpiryReports}), ask the policy whether a request may
 * go, tell central of expired commands in a request of their own if any wait, take the batch the last settle claimed
 * ({@link ClaimedAhead}) or claim one, split it into a probe and a comparison ({@link Suspicions}), send and settle
 * them ({@link Exchange}, the main request's settle claiming the next batch in the same transaction); returns what it
 * did. Runs on a forwarder
 * thread ({@link ForwarderLoop}) or a test's; any number of workers may run steps at once (a Resilience4j bulkhead
 * caps the requests in flight, and a claim never takes a device whose lowest open event is in flight).
 */
final class ForwardStep {
    private static final Logger LOG = LoggerFactory.getLogger(ForwardStep.class);

    private final ForwarderSettings settings;
    private final ForwarderOutbox outbox;
    private final LongSupplier storedUpTo;
    private final Clock clock;
    private final ForwarderPolicy policy;
    private final CentralGuards guards;
    private final BatchSettler settler;
    private final FinalReceipts finalReceipts;
    private final Suspicions suspicions;
    private final Exchange exchange;
    private final ClaimedAhead claimedAhead;
    private final ExpiryReports expiryReports;
    private volatile @Nullable String lastFailure;
    private final AtomicInteger failedInARow = new AtomicInteger();
    private final AtomicLong failedSteps = new AtomicLong();

    /** @param storedUpTo the highest outbox row whose {@code stored} receipt has been handed out */
    ForwardStep(
            ForwarderSettings settings,
            ForwarderOutbox outbox,
            LongSupplier storedUpTo,
            Clock clock,
            ForwarderPolicy policy,
            CentralGuards guards,
            BatchSettler settler,
            FinalReceipts finalReceipts,
            Suspicions suspicions,
            Exchange exchange,
            ClaimedAhead claimedAhead,
            ExpiryReports expiryReports) {
        this.expiryReports = expiryReports;
        this.settings = settings;
        this.outbox = outbox;
        this.storedUpTo = storedUpTo;
        this.clock = clock;
        this.policy = policy;
        this.guards = guards;
        this.settler = settler;
        this.finalReceipts = finalReceipts;
        this.suspicions = suspicions;
        this.exchange = exchange;
        this.claimedAhead = claimedAhead;
    }

    /** One step. An unexpected exception is logged (once per kind in a row) and ends as {@link StepResult.Failed}. */
    StepResult run() {
        StepResult result;
        try {
            result = once();
        } catch (RuntimeException e) {
            String failure = String.valueOf(e.getMessage());
            failedInARow.incrementAndGet();
            failedSteps.incrementAndGet();
            if (!failure.equals(lastFailure)) {
                LOG.error(
                        "forwarder step failed; trying again every {} s (the same failure again is not logged)",
                        ForwarderWaits.AFTER_FAILED_STEP.toSeconds(),
                        e);
            }
            lastFailure = failure;
            return new StepResult.Failed(failure, ForwarderWaits.AFTER_FAILED_STEP);
        }
        int failed = failedInARow.getAndSet(0);
        if (failed > 0) {
            LOG.info("forwarder steps succeed again after {} failed ones", failed);
            lastFailure = null;
        }
        return result;
    }

    private StepResult once() {
        try {
            return steps();
        } finally {
            exchange.releaseUnprovenCarried(); // a probe failure no main request proved in time: released, uncounted
        }
    }

    private StepResult steps() {
        if (!settler.settleKept()) {
            policy.enter(ForwarderState.OUTBOX_UNWRITABLE);
            return new StepResult.Held(ForwarderState.OUTBOX_UNWRITABLE, ForwarderWaits.OUTBOX_UNWRITABLE_RETRY);
        }
        finalReceipts.republishIfDue(clock.instant());
        expiryReports.sweepIfDue();
        exchange.collectProbe();
        Optional<StepResult> held = policy.holdBack();
        if (held.isPresent()) {
            claimedAhead.releaseAll(
                    outbox, "not sent: the forwarder is " + policy.state().statusName());
            return held.get();
        }
        Duration untilPermit = guards.untilRequestPermit();
        if (!untilPermit.isZero()) {
            return new StepResult.Held(ForwarderState.SENDING, untilPermit);
        }
        if (!guards.bulkhead.tryAcquirePermission()) {
            return new StepResult.Idle(ForwarderState.SENDING, ForwarderWaits.IDLE_POLL);
        }
        try {
            List<Expiries.Expired> expired = expiryReports.unreported();
            if (!expired.isEmpty()) {
                policy.enter(ForwarderState.SENDING);
                expiryReports.report(BatchIds.next(), expired);
                return new StepResult.Sent(0, policy.afterRequest());
            }
            Optional<ClaimedAhead.Batch> ahead = claimedAhead.take();
            String claimId = ahead.map(ClaimedAhead.Batch::claimId).orElseGet(BatchIds::next);
            List<ClaimedEvent> events = ahead.isPresent()
                    ? ahead.get().events()
                    : outbox.claim(
                            settings.batching().limit(),
                            IngestRequest.eventBudget(settings),
                            IngestRequest::eventBytes,
                            storedUpTo.getAsLong(),
                            claimId);
            if (events.isEmpty()) {
                policy.enter(ForwarderState.IDLE);
                return new StepResult.Idle(ForwarderState.IDLE, ForwarderWaits.IDLE_POLL);
            }
            int sent;
            try {
                Suspicions.Plan plan = suspicions.plan(
                        events,
                        clock.instant(),
                        guards.breaker.getState() == CircuitBreaker.State.CLOSED,
                        exchange.probeSlotFree(),
                        exchange.groupProbeOut());
                settler.releaseUnsent(
                        SentRequest.unmeasured(claimId),
                        plan.held(),
                        plan.waitingForCompany()
                                ? "held back: a suspected event waits for other events to be compared with "
                                        + "(docs/forwarding.md, Blame)"
                                : "held back: an earlier event of the same device, or of its group, is suspected of "
                                        + "making central fail");
                if (plan.sendsNothing()) {
                    policy.enter(ForwarderState.IDLE);
                    return new StepResult.Idle(ForwarderState.IDLE, ForwarderWaits.IDLE_POLL);
                }
                policy.enter(ForwarderState.SENDING);
                TestHook.AFTER_CLAIM.enter();
                sent = exchange.run(claimId, plan);
            } catch (RuntimeException e) {
                releaseClaim(claimId, e);
                throw e;
            }
            return new StepResult.Sent(sent, policy.afterRequest());
        } finally {
            guards.bulkhead.onComplete();
        }
    }

    /** An unexpected failure between claim and settle: whatever of the claim is still in flight is pending again. */
    private void releaseClaim(String claimId, RuntimeException cause) {
        try {
            int released = outbox.releaseClaim(claimId, "released after an unexpected failure: " + cause);
            LOG.warn(
                    "unexpected failure while sending a batch; its {} events still in flight are pending again",
                    released);
        } catch (RuntimeException e) {
            LOG.warn(
                    "could not release the claim of a failed batch ({}); it returns to pending at the next start",
                    e.toString());
        }
    }

    /** Steps that ended in an unexpected exception since start. */
    long failedSteps() {
        return failedSteps.get();
    }
}
