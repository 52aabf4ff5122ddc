package org.edgebridge.forward;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.edgebridge.outbox.ClaimedEvent;
import org.edgebridge.outbox.Settlement;
import org.jspecify.annotations.Nullable;

/**
 * The rounds of {@link ServerErrorHunt}: bisecting a batch that failed again, sending known suspects alone, and
 * settling what a round kept in flight. Runs on the forwarder thread of the step. It sends through the forwarder
 * ({@link Sender}, the one way back: a request of a round is split or answered like any other), settles and releases
 * with the {@link BatchSettler}, and tells central's own failures to {@link CentralFailed}.
 */
final class ServerErrorRounds {
    /** Sends (and settles) one request: a batch of the step ({@code round} null) or one of a round's requests. */
    @FunctionalInterface
    interface Sender {
        /** With a round, a failure is kept in flight for the round instead of settled. */
        Forwarded send(List<ClaimedEvent> events, ServerErrorHunt.@Nullable Round round);
    }

    private final ServerErrorHunt hunt;
    private final CentralFailureRate failureRate;
    private final Sender sender;
    private final BatchSettler settler;
    private final ForwarderPolicy policy;
    private final CentralFailed centralFailed;
    private final AloneFailures alone;
    private final Clock clock;

    ServerErrorRounds(ServerErrorHunt hunt, CentralFailureRate failureRate, Sender sender, BatchSettler settler,
            ForwarderPolicy policy, CentralFailed centralFailed, AloneFailures alone, Clock clock) {
        this.hunt = hunt;
        this.failureRate = failureRate;
        this.sender = sender;
        this.settler = settler;
        this.policy = policy;
        this.centralFailed = centralFailed;
        this.alone = alone;
        this.clock = clock;
    }

    /**
     * Events that failed together, halved: the first half, then the second half (of the devices the first half
     * does not hold back); the half that fails while the other does not is halved again, down to one event, the
     * suspect. Both halves failing means central is failing: the round stops.
     */
    Set<Long> bisect(List<ClaimedEvent> events, ServerErrorHunt.Round round) {
        round.resend(events);
        int half = events.size() / 2;
        List<ClaimedEvent> first = events.subList(0, half);
        Forwarded a = sender.send(first, round);
        Set<Long> finalIds = new HashSet<>(a.finals());
        String batchId = BatchSender.newBatchId();
        List<ClaimedEvent> next = settler.notHeldBack(batchId, first, finalIds, events.subList(half, events.size()));
        Forwarded b = null;
        if (!next.isEmpty() && policy.stillSending()) {
            b = sender.send(next, round);
            finalIds.addAll(b.finals());
        } else {
            settler.releaseUnsent(batchId, next, "not sent: central is failing or paused");
        }
        boolean secondFailed = b != null && b.failed();
        if (a.failed() && secondFailed) {
            round.centralFailing();
            return finalIds;
        }
        List<ClaimedEvent> failedHalf = a.failed() ? first : secondFailed ? next : null;
        if (failedHalf == null || round.stopped() || !policy.stillSending()) {
            return finalIds;
        }
        if (failedHalf.size() == 1) {
            round.suspect(failedHalf.get(0));
        } else {
            finalIds.addAll(bisect(failedHalf, round));
        }
        return finalIds;
    }

    /**
     * A batch that holds known suspects: per device in sequence order, the events ahead of its first suspect go first
     * with the other devices' events, in one request, then that suspect alone, if everything ahead of it is final;
     * everything behind it waits until it is (docs/protocol.md §2.2: a later event never reaches central before an
     * earlier one of the same device is final). A suspect that fails while central answered nothing in the round ends the
     * round: the suspects left are released, not counted (a central that hangs on everything costs one timeout per
     * round, not one per suspect); whether the failed one counts is {@link #finishRound}'s rule.
     */
    Forwarded quarantine(List<ClaimedEvent> events, List<ClaimedEvent> suspects) {
        String batchId = BatchSender.newBatchId();
        Set<Long> suspectIds = new HashSet<>();
        suspects.forEach(s -> suspectIds.add(s.id()));
        // per device in sequence order: the events ahead of its first suspect go with the others, the first suspect
        // alone after them, and everything behind it waits (released) until the suspect is final
        Set<String> behindASuspect = new HashSet<>();
        List<ClaimedEvent> others = new ArrayList<>();
        List<ClaimedEvent> alone = new ArrayList<>();
        List<ClaimedEvent> held = new ArrayList<>();
        for (ClaimedEvent e : events) {
            if (behindASuspect.contains(e.clientId())) {
                held.add(e);
            } else if (suspectIds.contains(e.id())) {
                alone.add(e);
                behindASuspect.add(e.clientId());
            } else {
                others.add(e);
            }
        }
        settler.releaseUnsent(batchId, held, "an earlier event of the same device makes central fail; it is sent alone first");
        ServerErrorHunt.Round round = new ServerErrorHunt.Round();
        Set<Long> finalIds = new HashSet<>();
        Set<String> notFinal = new HashSet<>();
        if (!others.isEmpty()) {
            Forwarded sent = sender.send(others, null);
            finalIds.addAll(sent.finals());
            if (!sent.failed()) {
                round.answered();
            }
            others.stream().filter(e -> !sent.finals().contains(e.id())).forEach(e -> notFinal.add(e.clientId()));
        }
        RequestOutcome.Failed lastFailure = null;
        boolean centralAnswersNothing = false;
        for (ClaimedEvent s : alone) {
            if (centralAnswersNothing || !policy.stillSending()) {
                settler.releaseUnsent(batchId, List.of(s), "not sent: central is failing or paused");
                continue;
            }
            if (notFinal.contains(s.clientId())) {
                settler.releaseUnsent(batchId, List.of(s), "not sent: an earlier event of the same device is not final yet");
                continue;
            }
            Forwarded sent = sender.send(List.of(s), round);
            finalIds.addAll(sent.finals());
            if (sent.failed()) {
                round.suspect(s);
                lastFailure = round.why(s.id());
                // nothing answered in this round: central may be down or hang on everything; the other suspects
                // are not sent one timeout after another (they go in the next step, or after the backoff)
                centralAnswersNothing = !round.answeredAny();
            }
        }
        if (lastFailure != null) {
            finishRound(batchId, round, lastFailure, false);
        }
        return new Forwarded(finalIds, false);
    }

    /**
     * Settles what a bisection kept in flight: suspects held back or parked, the rest released. A round that
     * counted no suspect (both halves failed, or nothing proved central well) was central failing: one failed request.
     *
     * @param newSuspects the round bisected a batch without known suspects (as opposed to sending known ones alone)
     */
    void finishRound(String batchId, ServerErrorHunt.Round round, RequestOutcome.Failed failed, boolean newSuspects) {
        Instant now = clock.instant();
        List<Settlement> out = new ArrayList<>();
        String notAnswered = "not answered: central failed while the event that makes it fail was looked for";
        round.leftover().forEach(e -> out.add(new Settlement.Release(e.id(), notAnswered)));
        boolean anyCounted = false;
        for (ClaimedEvent e : round.suspects()) {
            if (!round.answeredAny() && !hunt.centralAnswersOthers()) {
                hunt.failedAloneUnproven(e.id());
                out.add(new Settlement.Release(e.id(), notAnswered)); // central answers nothing: not this event's doing
                continue;
            }
            RequestOutcome.Failed why = Objects.requireNonNull(round.why(e.id())); // every suspect failed in the round
            anyCounted = true;
            hunt.isolated(e.id());
            Settlement s = alone.settle(e, why.parkCode(), "central failed on this event alone (" + why.reason() + ")", now);
            if (s instanceof Settlement.Park) {
                hunt.forget(e.id());
            }
            out.add(s);
        }
        if (!anyCounted && (round.stopped() || round.suspects().isEmpty())) {
            failureRate.failed(); // central failed requests whatever their events; a suspect's own failure is not that
        }
        if (!anyCounted) {
            // a bisection that ended on one new suspect, with no other half refused, has not shown central refusing all
            centralFailed.record(failed, !(newSuspects && !round.stopped() && !round.suspects().isEmpty()));
        }
        settler.settle(batchId, out);
    }
}
