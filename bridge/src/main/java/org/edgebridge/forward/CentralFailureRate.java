package org.edgebridge.forward;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * How often central fails the requests that hold no suspect: the evidence one event's failures alone are weighed
 * against. A poison event fails every time it is sent alone while central answers the others; a central that fails at
 * random (an overloaded gateway, a flapping node) fails an innocent event alone now and then as well, and
 * {@code forwarder.maxServerErrors} such failures in a row are then no proof. So the failures in a row that park a
 * suspect (or give up a report of expired commands) are {@code maxServerErrors} while central fails at most one
 * request in twenty, and more when it fails more: as many as it takes for chance to be as unlikely as
 * {@code maxServerErrors} failures against a central that fails one in twenty ({@link #failuresToPark()}).
 *
 * <p>What counts: a request without a suspect that central answered, or that failed in a way one event may cause (a
 * 5xx, a timeout, a dropped connection): the main requests of the steps (docs/forwarding.md, "Blame"). No connection at
 * all is not counted: then central answers nothing and nothing is counted against an event anyway. Remembers the last
 * {@value #WINDOW} outcomes of the last 15 minutes (bounded; an old outage is forgotten); shared by the forwarder
 * workers.
 */
final class CentralFailureRate {
    static final int WINDOW = 50;
    private static final Duration HORIZON = Duration.ofMinutes(15);
    /** The share of failed requests at which {@code maxServerErrors} failures alone are taken as proof. */
    static final double HEALTHY_SHARE = 0.05;
    /** The prior: as if central had answered ten requests and failed half of one (the healthy share). */
    private static final double PRIOR_REQUESTS = 10;

    private static final double PRIOR_FAILURES = 0.5;
    /** Beyond this share central is failing, not one event; it also bounds the failures asked for. */
    private static final double MAX_SHARE = 0.95;

    private record Outcome(Instant at, boolean failed) {}

    private final int maxServerErrors;
    private final Clock clock;
    private final Deque<Outcome> outcomes = new ArrayDeque<>(); // guarded by this

    CentralFailureRate(int maxServerErrors, Clock clock) {
        this.maxServerErrors = maxServerErrors;
        this.clock = clock;
    }

    /** A request without a suspect was answered. */
    void answered() {
        add(false);
    }

    /** A request without a suspect failed, and no event of it is to blame. */
    void failed() {
        add(true);
    }

    private synchronized void add(boolean failed) {
        outcomes.addLast(new Outcome(clock.instant(), failed));
        while (outcomes.size() > WINDOW) {
            outcomes.removeFirst();
        }
    }

    /**
     * The share of the remembered requests central failed, smoothed by the prior ({@value #HEALTHY_SHARE} with none).
     */
    synchronized double share() {
        Instant oldest = clock.instant().minus(HORIZON);
        while (!outcomes.isEmpty() && outcomes.peekFirst().at().isBefore(oldest)) {
            outcomes.removeFirst();
        }
        long failed = outcomes.stream().filter(Outcome::failed).count();
        return Math.min(MAX_SHARE, (failed + PRIOR_FAILURES) / (outcomes.size() + PRIOR_REQUESTS));
    }

    /**
     * The failures alone in a row that park a suspect: {@code maxServerErrors}, or the n for which
     * share<sup>n</sup> &le; {@value #HEALTHY_SHARE}<sup>maxServerErrors</sup> when central fails more often than that
     * (with the shipped 5: 7 when central fails one request in ten, 14 at one in three, 22 at one in two).
     */
    int failuresToPark() {
        double share = share();
        if (share <= HEALTHY_SHARE) {
            return maxServerErrors;
        }
        double n = maxServerErrors * Math.log(HEALTHY_SHARE) / Math.log(share);
        return Math.max(maxServerErrors, (int) Math.ceil(n - 1e-9));
    }
}
