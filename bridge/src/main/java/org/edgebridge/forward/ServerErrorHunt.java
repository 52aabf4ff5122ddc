package org.edgebridge.forward;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.edgebridge.outbox.ClaimedEvent;
import org.jspecify.annotations.Nullable;

/**
 * Finding the one event that makes central fail (issues 14 and 23, "one poison event does not stop a site").
 *
 * <p>A batch of two or more events that fails in a way one event may cause (a 5xx, 503 included, another 4xx, a dropped
 * connection, a timeout) is bisected at once, like a 400/413: the halves are sent one after the other, and the half
 * that fails while the other is answered is halved again, down to one event. That event is a <em>suspect</em>: it is
 * held back (its device sends nothing while it waits, every other device goes on) and later sent alone, after the
 * other devices' events of its batch. Its failure counts toward parking ({@link AloneFailures}) only with proof that
 * central answers other events: a request of the same round was answered, or the last request without a suspect was
 * ({@link #centralAnswersOthers()}). When both halves fail, or nothing proves central well, central itself is
 * failing: the round ends as one failed request (backoff, and one failure for the circuit breaker), counting nothing.
 * The requests of a batch that may be failing for one event are ignored by the circuit breaker until the round says
 * which (see {@link CentralCall}).
 *
 * <p>One {@link Round} per forwarder step (one thread); what is remembered across steps is shared by the workers and
 * thread-safe. Suspects are open events, so at most {@code outbox.maxPending} of them are remembered.
 */
final class ServerErrorHunt {
    /** Suspects isolated with proof that central answers other events. */
    private final Set<Long> isolated = ConcurrentHashMap.newKeySet();
    /** Events that failed alone, in a request of their own, without proof: sent alone again, counted only with it. */
    private final Set<Long> failedAloneUnproven = ConcurrentHashMap.newKeySet();
    private volatile @Nullable Instant lastOtherFailure;
    private volatile @Nullable Instant lastOtherAnswer;

    /** Whether a batch that just failed with {@code failed} is worth bisecting: it may be one event's doing. */
    static boolean worthHunting(List<ClaimedEvent> events, RequestOutcome.Failed failed) {
        return events.size() >= 2 && failed.mayBeOneEvent();
    }

    /** A suspect: isolated or failed alone in this run, or counted before (also before a restart). */
    boolean isSuspect(ClaimedEvent e) {
        return e.centralFailures() > 0 || isolated.contains(e.id()) || failedAloneUnproven.contains(e.id());
    }

    /** The known suspects among claimed events: they are sent alone. */
    List<ClaimedEvent> suspectsIn(List<ClaimedEvent> events) {
        return events.stream().filter(this::isSuspect).toList();
    }

    /**
     * Whether central answers other events: the last request without a suspect was answered. A suspect that fails
     * alone then fails of its own doing, also when nothing else is pending right now.
     */
    boolean centralAnswersOthers() {
        Instant answered = lastOtherAnswer;
        Instant failed = lastOtherFailure;
        return answered != null && (failed == null || failed.isBefore(answered));
    }

    /** A request without a suspect failed: central itself may be failing. */
    void otherFailed(Instant at) {
        lastOtherFailure = at;
    }

    /** A request without a suspect was answered: central is up. */
    void otherAnswered(Instant at) {
        lastOtherAnswer = at;
    }

    /** Central failed on this event alone, with proof that it answers others. */
    void isolated(long id) {
        isolated.add(id);
        failedAloneUnproven.remove(id);
    }

    /** A request that held only this event failed, and nothing proves central well: sent alone from now on. */
    void failedAloneUnproven(long id) {
        if (!isolated.contains(id)) {
            failedAloneUnproven.add(id);
        }
    }

    /** The event is final or parked: nothing to remember about it. */
    void forget(long id) {
        isolated.remove(id);
        failedAloneUnproven.remove(id);
    }

    /** The bookkeeping of one bisection, within one step. */
    static final class Round {
        private final Map<Long, ClaimedEvent> kept = new LinkedHashMap<>();
        private final Map<Long, RequestOutcome.Failed> why = new LinkedHashMap<>();
        private final List<ClaimedEvent> suspects = new ArrayList<>();
        private boolean answered;
        private boolean centralFailing;

        /** A request of the round failed: its events stay in flight until {@link #leftover()}/{@link #suspects()}. */
        void failed(List<ClaimedEvent> events, RequestOutcome.Failed failed) {
            for (ClaimedEvent e : events) {
                kept.put(e.id(), e);
                why.put(e.id(), failed);
            }
        }

        /** These kept events are sent again, in smaller requests. */
        void resend(List<ClaimedEvent> events) {
            events.forEach(e -> kept.remove(e.id()));
        }

        void answered() {
            answered = true;
        }

        /** Both halves failed: central itself is failing; the round stops. */
        void centralFailing() {
            centralFailing = true;
        }

        boolean stopped() {
            return centralFailing;
        }

        void suspect(ClaimedEvent e) {
            kept.remove(e.id());
            suspects.add(e);
        }

        /** True when some request of the round was answered: central answers other events. */
        boolean answeredAny() {
            return answered;
        }

        List<ClaimedEvent> suspects() {
            return suspects;
        }

        /** Why a suspect's last request failed; null for an event whose request did not fail in this round. */
        RequestOutcome.@Nullable Failed why(long id) {
            return why.get(id);
        }

        /** Kept events that are no suspect: to release. */
        List<ClaimedEvent> leftover() {
            return new ArrayList<>(kept.values());
        }
    }
}
