package org.edgebridge.forward;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.IntFunction;
import org.edgebridge.outbox.ClaimedEvent;
import org.edgebridge.outbox.Settlement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rounds of {@link ServerErrorHunt}: bisecting a batch that failed again, sending known suspects alone, and
 * settling what a round kept in flight. Runs on the forwarder thread of the step; sends and settles through the
 * forwarder ({@link Sender}).
 */
final class ServerErrorRounds {
    private static final Logger LOG = LoggerFactory.getLogger(Forwarder.class);

    /** What the rounds need of the forwarder. */
    interface Sender {
        /** Sends (and settles) one request; with a round, a failure is kept in flight for the round. */
        Forwarded send(List<ClaimedEvent> events, ServerErrorHunt.Round round);

        void release(String batchId, List<ClaimedEvent> events, String reason);

        void settle(String batchId, List<Settlement> settlements);

        /** Not paused and not backing off. */
        boolean stillSending();

        /** A failed request: back off as after any other. */
        void backOff(String reason);

        /** The events of {@code rest} whose devices {@code first} does not hold back; the others are released. */
        List<ClaimedEvent> notHeldBack(String batchId, List<ClaimedEvent> first, Set<Long> finalIds, List<ClaimedEvent> rest);
    }

    private final ServerErrorHunt hunt;
    private final Sender sender;
    private final int maxServerErrors;
    private final IntFunction<Duration> backoff;
    private final Clock clock;

    /** @param backoff the per-event backoff of the n-th attempt */
    ServerErrorRounds(ServerErrorHunt hunt, Sender sender, int maxServerErrors, IntFunction<Duration> backoff, Clock clock) {
        this.hunt = hunt;
        this.sender = sender;
        this.maxServerErrors = maxServerErrors;
        this.backoff = backoff;
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
        String batchId = UUID.randomUUID().toString();
        List<ClaimedEvent> next = sender.notHeldBack(batchId, first, finalIds, events.subList(half, events.size()));
        Forwarded b = null;
        if (!next.isEmpty() && sender.stillSending()) {
            b = sender.send(next, round);
            finalIds.addAll(b.finals());
        } else {
            sender.release(batchId, next, "not sent: central is failing or paused");
        }
        boolean secondFailed = b != null && b.failed();
        if (a.failed() && secondFailed) {
            round.centralFailing();
            return finalIds;
        }
        List<ClaimedEvent> failedHalf = a.failed() ? first : secondFailed ? next : null;
        if (failedHalf == null || round.stopped() || !sender.stillSending()) {
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
     * A batch that holds known suspects: the other devices' events go first, in their own request, then each
     * suspect alone (the later events of its device wait for it).
     */
    Forwarded quarantine(List<ClaimedEvent> events, List<ClaimedEvent> suspects) {
        String batchId = UUID.randomUUID().toString();
        Set<String> devices = new HashSet<>();
        suspects.forEach(s -> devices.add(s.clientId()));
        List<ClaimedEvent> others = new ArrayList<>();
        List<ClaimedEvent> held = new ArrayList<>();
        for (ClaimedEvent e : events) {
            if (!devices.contains(e.clientId())) {
                others.add(e);
            } else if (!suspects.contains(e)) {
                held.add(e);
            }
        }
        sender.release(batchId, held, "an earlier event of the same device makes central fail; it is sent alone first");
        ServerErrorHunt.Round round = new ServerErrorHunt.Round();
        Set<Long> finalIds = new HashSet<>();
        if (!others.isEmpty()) {
            Forwarded sent = sender.send(others, null);
            finalIds.addAll(sent.finals());
            if (!sent.failed()) {
                round.answered();
            }
        }
        RequestOutcome.Failed lastFailure = null;
        for (ClaimedEvent s : suspects) {
            if (!sender.stillSending()) {
                sender.release(batchId, List.of(s), "not sent: central is failing or paused");
                continue;
            }
            Forwarded sent = sender.send(List.of(s), round);
            finalIds.addAll(sent.finals());
            if (sent.failed()) {
                round.suspect(s);
                lastFailure = round.why(s.id());
            }
        }
        if (lastFailure != null) {
            finishRound(batchId, round, lastFailure);
        }
        return new Forwarded(finalIds, false);
    }

    /** Settles what a bisection kept in flight: suspects held back or parked, the rest released. */
    void finishRound(String batchId, ServerErrorHunt.Round round, RequestOutcome.Failed failed) {
        Instant now = clock.instant();
        List<Settlement> out = new ArrayList<>();
        String notAnswered = "not answered: central failed while the event that makes it fail was looked for";
        round.leftover().forEach(e -> out.add(new Settlement.Release(e.id(), notAnswered)));
        boolean anyCounted = false;
        for (ClaimedEvent e : round.suspects()) {
            RequestOutcome.Failed why = round.why(e.id());
            if (!round.answeredAny() && !hunt.stillAlone(e.id())) {
                out.add(new Settlement.Release(e.id(), notAnswered)); // central answers nothing: not this event's doing
                continue;
            }
            anyCounted = true;
            if (!why.serverError()) {
                hunt.timedOutAlone(e.id(), now);
                out.add(new Settlement.RetryLater(e.id(), now.plus(backoff.apply(e.attempt())),
                        "central times out on this event alone (never parked for it): " + why.reason(), false));
            } else {
                int n = hunt.countServerError(e.id(), now);
                if (n >= maxServerErrors) {
                    hunt.forget(e.id());
                    out.add(new Settlement.Park(e.id(), ServerErrorHunt.PARK_CODE, "central failed on this event alone "
                            + n + " times (forwarder.maxServerErrors): " + why.reason()));
                    LOG.warn("event {} of {} parked ({}): central failed on it alone {} times; every other event goes on",
                            e.commandId(), e.clientId(), ServerErrorHunt.PARK_CODE, n);
                } else {
                    out.add(new Settlement.RetryLater(e.id(), now.plus(backoff.apply(n)), "central fails on this event "
                            + "alone (" + n + " of forwarder.maxServerErrors=" + maxServerErrors + "): " + why.reason(),
                            false));
                    LOG.warn("event {} of {} makes central fail ({}); held back, {} of {} before it is parked",
                            e.commandId(), e.clientId(), why.reason(), n, maxServerErrors);
                }
            }
        }
        if (!anyCounted) {
            sender.backOff(failed.reason());
        }
        sender.settle(batchId, out);
    }
}
