package org.edgebridge.forward;

import java.time.Clock;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.edgebridge.outbox.ClaimedEvent;
import org.edgebridge.outbox.CommandState;
import org.edgebridge.outbox.Settlement;
import org.jspecify.annotations.Nullable;

/**
 * Sends claimed events to central and settles them: one request through the guards ({@link CentralCall}), its
 * outcome told to the {@link ForwarderPolicy}, and its settlements committed ({@link BatchSettler}). On 413/400/422
 * the batch is halved; the second half goes only where the first half left no open event of the same device ahead
 * of it. A 5xx (503 included), another 4xx, a dropped connection or a timeout of two or more events is bisected the same way
 * ({@link ServerErrorRounds}). Runs on the thread of the step; the counters are shared by the workers.
 */
final class BatchSender {
    private final CentralCall call;
    private final ForwarderPolicy policy;
    private final BatchSettler settler;
    private final ServerErrorHunt hunt;
    private final CentralFailureRate failureRate;
    private final ServerErrorRounds rounds;
    private final ClaimedAhead claimedAhead;
    private final ForwarderLoop.Sleeper rateLimitWait;
    private final Clock clock;
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong eventsSent = new AtomicLong();
    private final AtomicLong missingReceipts = new AtomicLong();
    private volatile @Nullable Instant lastMissingReceiptAt;

    /** @param rateLimitWait how the rate limiters' waits are waited (the loop's, or a test's clock) */
    BatchSender(ForwarderSettings settings, CentralCall call, ForwarderPolicy policy, BatchSettler settler,
            ServerErrorHunt hunt, CentralFailureRate failureRate, ReplyClassifier classifier, ClaimedAhead claimedAhead,
            ForwarderLoop.Sleeper rateLimitWait, Clock clock) {
        this.failureRate = failureRate;
        this.call = call;
        this.claimedAhead = claimedAhead;
        this.policy = policy;
        this.settler = settler;
        this.hunt = hunt;
        this.rateLimitWait = rateLimitWait;
        this.clock = clock;
        this.rounds = new ServerErrorRounds(hunt, failureRate, this::send, settler, policy,
                new CentralFailed(hunt, policy, call, clock),
                new AloneFailures(settings.maxServerErrors(), failureRate::failuresToPark, classifier::backoff), clock);
    }

    /**
     * Sends events in one request (through the circuit breaker, which may refuse it) and settles them.
     *
     * @param round the bisection this request belongs to, or null: a failed request of a round is not settled
     *     here but kept in flight for the round
     */
    Forwarded send(List<ClaimedEvent> events, ServerErrorHunt.@Nullable Round round) {
        return send(events, round, false);
    }

    /**
     * {@link #send(List, ServerErrorHunt.Round)} of a step's batch: when central answers it whole, the transaction
     * that settles it also claims the next batch ({@link ClaimedAhead}). Not for the halves of a split or the requests
     * of a bisection, which have more of their own batch to send first.
     */
    Forwarded sendAndClaimNext(List<ClaimedEvent> events) {
        return send(events, null, true);
    }

    private Forwarded send(List<ClaimedEvent> events, ServerErrorHunt.@Nullable Round round, boolean claimNext) {
        if (round == null) {
            List<ClaimedEvent> suspects = hunt.suspectsIn(events);
            if (!suspects.isEmpty()) {
                return rounds.quarantine(events, suspects);
            }
        }
        String batchId = newBatchId();
        RequestOutcome outcome = call.send(batchId, events, rateLimitWait, round != null ? CentralCall.Failures.IGNORED
                : events.size() >= 2 ? CentralCall.Failures.ONE_EVENT_FAILURES_DEFERRED : CentralCall.Failures.RECORDED);
        if (!(outcome instanceof RequestOutcome.NotPermitted) && !(outcome instanceof RequestOutcome.NoToken)) {
            requests.incrementAndGet();
        }
        if (reachedCentral(outcome)) {
            eventsSent.addAndGet(events.size());
        }
        Set<Long> finalIds = new HashSet<>();
        if (round == null && (outcome instanceof RequestOutcome.Answered || outcome instanceof RequestOutcome.Split)) {
            failureRate.answered(); // a request without a suspect: evidence of how often central fails at random
        }
        if (outcome instanceof RequestOutcome.Answered answered) {
            answered(round);
            if (answered.count(ReceiptCheck.Violation.MISSING) > 0) {
                missingReceipts.addAndGet(answered.count(ReceiptCheck.Violation.MISSING));
                lastMissingReceiptAt = clock.instant();
            }
            for (Settlement s : answered.settlements()) {
                if (s instanceof Settlement.Final) {
                    finalIds.add(s.id());
                }
            }
            if (claimNext && policy.stillSending()) {
                settler.settleAndClaimNext(batchId, answered.settlements(), claimedAhead);
            } else {
                settler.settle(batchId, answered.settlements());
            }
        } else if (outcome instanceof RequestOutcome.Throttled throttled) {
            policy.throttled(throttled.retryAfter(), throttled.reason());
            settler.release(batchId, events, throttled.reason());
        } else if (outcome instanceof RequestOutcome.Failed failed) {
            if (failed.cause() == RequestOutcome.Cause.NO_RECEIPTS) {
                missingReceipts.addAndGet(events.size());
                lastMissingReceiptAt = clock.instant();
            }
            if (round != null) {
                policy.failedInRound(failed.reason());
                round.failed(events, failed);
            } else if (ServerErrorHunt.worthHunting(events, failed)) {
                policy.failedInRound(failed.reason());
                ServerErrorHunt.Round r = new ServerErrorHunt.Round();
                r.failed(events, failed);
                finalIds.addAll(rounds.bisect(events, r));
                rounds.finishRound(batchId, r, failed, true);
            } else {
                if (events.size() == 1 && failed.mayBeOneEvent()) {
                    hunt.failedAloneUnproven(events.get(0).id()); // sent alone, after the others, from now on
                } else {
                    hunt.otherFailed(clock.instant());
                }
                // a 403 of one event alone, unproven, backs off like a 5xx: the next step sends the other devices'
                // events first, and only if central refuses those too is it refusing the bridge (CentralFailed)
                policy.failed(failed.reason(), failed.retryAfter());
                if (failed.cause() == RequestOutcome.Cause.UNREACHABLE) {
                    settler.releaseUnsent(batchId, events, failed.reason());
                } else {
                    settler.release(batchId, events, failed.reason());
                }
            }
            return new Forwarded(finalIds, true);
        } else if (outcome instanceof RequestOutcome.Refused refused) {
            policy.refused(refused.reason(), refused.redirect());
            settler.release(batchId, events, refused.reason());
        } else if (outcome instanceof RequestOutcome.Split split) {
            answered(round);
            finalIds.addAll(split(batchId, events, split, round));
        } else if (outcome instanceof RequestOutcome.NoToken noToken) {
            policy.noToken(noToken.reason(), noToken.failuresInARow());
            settler.releaseUnsent(batchId, events, noToken.reason());
        } else if (outcome instanceof RequestOutcome.NotPermitted notPermitted) {
            settler.releaseUnsent(batchId, events, "not sent: " + notPermitted.reason());
        }
        return new Forwarded(finalIds, false);
    }

    /** Central answered a request (2xx, 400/413/422): it is up, whatever a suspect does. */
    private void answered(ServerErrorHunt.@Nullable Round round) {
        policy.answered();
        hunt.otherAnswered(clock.instant());
        if (round != null) {
            round.answered();
        }
    }

    /** Whether central received the request: it answered with an HTTP status (a timeout may or may not have). */
    private static boolean reachedCentral(RequestOutcome outcome) {
        return outcome instanceof RequestOutcome.Answered || outcome instanceof RequestOutcome.Split
                || outcome instanceof RequestOutcome.Throttled || outcome instanceof RequestOutcome.Refused
                || outcome instanceof RequestOutcome.Failed f && f.answeredWithStatus();
    }

    private Set<Long> split(String batchId, List<ClaimedEvent> events, RequestOutcome.Split split,
            ServerErrorHunt.@Nullable Round round) {
        if (events.size() == 1) {
            ClaimedEvent e = events.get(0);
            settler.settle(batchId, List.of(new Settlement.Final(e.id(), CommandState.REJECTED, split.code(), split.reason(),
                    null)));
            return Set.of(e.id());
        }
        int half = events.size() / 2;
        List<ClaimedEvent> first = events.subList(0, half);
        Set<Long> finalIds = new HashSet<>(send(first, round).finals());
        List<ClaimedEvent> next = settler.notHeldBack(batchId, first, finalIds, events.subList(half, events.size()));
        if (next.isEmpty()) {
            return finalIds;
        }
        if (!policy.stillSending()) {
            settler.releaseUnsent(batchId, next, "not sent: central is failing or paused");
            return finalIds;
        }
        finalIds.addAll(send(next, round).finals());
        return finalIds;
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

    java.util.Optional<Instant> lastMissingReceiptAt() {
        return java.util.Optional.ofNullable(lastMissingReceiptAt);
    }

    static String newBatchId() {
        return UUID.randomUUID().toString();
    }
}
