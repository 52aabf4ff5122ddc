package org.edgebridge.forward;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.edgebridge.outbox.ClaimedEvent;

/**
 * Finding the one event that makes central fail (issue #14, "one poison event does not stop a site").
 *
 * <p>A batch that fails with a 5xx (not 503) or a timeout, and that holds an event of the batch that failed before
 * (or a known suspect), is bisected like a 400/413: the halves are sent one after the other, and the half that fails
 * while the other is answered is halved again, down to one event. That event is a <em>suspect</em>: it is kept back
 * (its device sends nothing while it waits, every other device goes on), and after {@code forwarder.maxServerErrors}
 * such rounds that ended in a 5xx it is parked with code {@code ingest_server_error}. A known suspect is sent alone,
 * after the other devices' events of its batch. Its failure counts only with proof that central answers other events:
 * a request of the same round was answered, or it was isolated before and no request without a suspect has failed
 * since. When both halves fail, or nothing proves central well, central itself is failing and the round ends as a
 * plain failed request (backoff), counting nothing. Timeouts isolate a suspect but never park it (timeouts never
 * park anything). The requests of a round are ignored by the circuit breaker (see {@link CentralCall.IgnoredFailure}).
 *
 * <p>One {@link Round} per forwarder step (one thread); the counts and the memory of the last failed batch are
 * shared by the workers and thread-safe.
 */
final class ServerErrorHunt {
    /** The code of an event parked because it alone makes central fail. */
    static final String PARK_CODE = "ingest_server_error";

    /** A suspect's count of rounds that ended in a 5xx on it alone, and when it last failed. */
    private record Count(int rounds, Instant lastFailedAt) {}

    private final Map<Long, Count> serverErrors = new ConcurrentHashMap<>();
    private final Map<Long, Instant> timedOut = new ConcurrentHashMap<>();
    private volatile Set<Long> lastFailed = Set.of();
    private volatile Instant lastOtherFailure;

    /** Whether a batch that just failed with {@code failed} is worth bisecting. */
    boolean worthHunting(List<ClaimedEvent> events, RequestOutcome.Failed failed) {
        if (events.size() < 2 || !failed.mayBeOneEvent()) {
            return false;
        }
        Set<Long> before = lastFailed;
        return events.stream().anyMatch(e -> before.contains(e.id()) || isSuspect(e.id()));
    }

    boolean isSuspect(long id) {
        return serverErrors.containsKey(id) || timedOut.containsKey(id);
    }

    /** The known suspects among claimed events: they are sent alone. */
    List<ClaimedEvent> suspectsIn(List<ClaimedEvent> events) {
        return events.stream().filter(e -> isSuspect(e.id())).toList();
    }

    /**
     * Whether a known suspect that failed again, alone, failed of its own doing: it was isolated before (a round
     * proved then that central answers other events) and no request without a suspect has failed since.
     */
    boolean stillAlone(long id) {
        Count c = serverErrors.get(id);
        Instant isolated = c != null ? c.lastFailedAt() : timedOut.get(id);
        Instant other = lastOtherFailure;
        return isolated != null && (other == null || other.isBefore(isolated));
    }

    /** A request without a suspect failed: central itself may be failing. */
    void otherFailed(Instant at) {
        lastOtherFailure = at;
    }

    /** Isolated by a timeout: held back like a 5xx suspect, never counted toward parking. */
    void timedOutAlone(long id, Instant at) {
        timedOut.put(id, at);
    }

    /** A batch failed and is not bisected (yet): remembered, so that its next failure is. */
    void failedTogether(List<ClaimedEvent> events) {
        Set<Long> ids = ConcurrentHashMap.newKeySet();
        events.forEach(e -> ids.add(e.id()));
        lastFailed = ids;
    }

    /** One more round in which this event alone failed with a 5xx. @return the count so far */
    int countServerError(long id, Instant at) {
        return serverErrors.merge(id, new Count(1, at), (a, b) -> new Count(a.rounds() + 1, at)).rounds();
    }

    /** The event is final or parked: nothing to remember about it. */
    void forget(long id) {
        serverErrors.remove(id);
        timedOut.remove(id);
    }

    /** Suspects being counted now (for the status page). */
    int suspects() {
        return serverErrors.size();
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

        /** Why a suspect's last request failed. */
        RequestOutcome.Failed why(long id) {
            return why.get(id);
        }

        /** Kept events that are no suspect: to release. */
        List<ClaimedEvent> leftover() {
            return new ArrayList<>(kept.values());
        }
    }
}
