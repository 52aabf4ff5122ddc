package org.edgebridge.forward;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;
import org.edgebridge.outbox.ClaimedEvent;
import org.edgebridge.outbox.Settlement;

/**
 * The isolation wing of the forwarder: which open events are suspected of making central fail, how a step's claim is
 * split into a probe, a comparison and what waits, and what a step's outcome proves (docs/forwarding.md, "Blame").
 *
 * <p>A <em>group</em> is a set of events one of which may make central fail: the events of a request that failed in a
 * way one event may cause (a 5xx, a 4xx other than the credential ones, a timeout, a reset, a reply without a
 * believable receipt). A group of one is a <em>suspect</em>; so is every event with a proven failure
 * ({@code central_failures} &gt; 0, which survives a restart). Suspected events never go in the main request.
 *
 * <p>A step sends at most two requests: the <em>probe</em> (one device's events of a group that spans several, half
 * of a one-device group's events, or a suspect alone), then the <em>comparison</em> (the main request of unsuspected
 * events, or else the group's other half). Answers clear events of suspicion. A probe's failure is proven its own only
 * when a request sent after it fails, holding none of its events, gets a final receipt for some event: then a group
 * narrows to the probe (the rest becomes a group of its own), and a suspect's failure is counted
 * ({@link AloneFailures}). Without that proof nothing is counted; the group only tries a smaller probe. A
 * proven suspect that has no comparison waits for one (other traffic) a while before it is probed alone.
 *
 * <p>Remembers at most {@value #MAX_TRACKED} events (the oldest groups are forgotten past it: their events are then
 * treated as unsuspected, and fail into a new group if they still make central fail). Thread-safe.
 */
final class Suspicions {
    static final int MAX_TRACKED = 100_000;
    /** Probes without proof after which the company wait is at its longest ({@code forwarder.backoffMax}). */
    private static final int LONGEST_WAIT_AFTER = 64;

    /** Events one of which may make central fail. */
    private static final class Group {
        final Set<Long> ids = new LinkedHashSet<>();
        /** At most this many in the next probe (0: half of what can be sent): half of the last probe that failed. */
        int limit;
        /** Probes that failed without proof since the last proof: how long a proven suspect waits for company. */
        int unproven;

        Instant lastProbedAt = Instant.EPOCH;
        /**
         * The group's comparison (sent when there is no main request) failed before: it is one device at a time now.
         * Else all its other devices go at once (innocent ones clear in one request).
         */
        boolean comparisonFailed;

        Instant waitingSince;

        Group(Instant now) {
            this.waitingSince = now;
        }
    }

    /**
     * How a step sends its claim.
     *
     * @param probe sent first: a suspect alone, or part of a group (may be empty)
     * @param comparison sent second: the main request, or the group's other half when there is no main request
     * @param comparisonIsMain whether the comparison is the main request (its outcome is central's, for the breaker)
     * @param held not sent in this step: behind a suspect of their device, or in another group
     * @param waitingForCompany a suspect due now waits for other traffic to be compared with
     */
    record Plan(
            List<ClaimedEvent> probe,
            List<ClaimedEvent> comparison,
            boolean comparisonIsMain,
            List<ClaimedEvent> held,
            boolean waitingForCompany) {
        boolean sendsNothing() {
            return probe.isEmpty() && comparison.isEmpty();
        }
    }

    private final Map<Long, Group> groupOf = new HashMap<>();
    private final Deque<Group> groups = new ArrayDeque<>();
    private final IntFunction<Duration> companyWait;
    private final AloneFailures alone;

    /**
     * @param companyWait how long a proven suspect with no other traffic to compare with waits before it is probed
     *     alone, after its n-th probe without proof (the per-event backoff: it grows to {@code forwarder.backoffMax})
     * @param alone how a proven failure of a suspect is counted
     */
    Suspicions(IntFunction<Duration> companyWait, AloneFailures alone) {
        this.companyWait = companyWait;
        this.alone = alone;
    }

    /**
     * Splits a claim (each device's events in sequence order, starting at its lowest open event).
     *
     * @param mayProbe false while the circuit breaker is half-open and a main request can carry its one probe
     * @param probeSlotFree false while a probe sent apart is under way: then no group is probed (its events wait)
     * @param groupProbeOut a probe of several events is out: a suspect alone is not probed now (its group needs the
     *     slot)
     */
    synchronized Plan plan(
            List<ClaimedEvent> claim, Instant now, boolean mayProbe, boolean probeSlotFree, boolean groupProbeOut) {
        Map<String, List<ClaimedEvent>> runs = new LinkedHashMap<>();
        for (ClaimedEvent e : claim) {
            if (e.centralFailures() > 0 && !groupOf.containsKey(e.id())) {
                add(List.of(e), now); // proven before (also before a restart): a suspect
            }
            runs.computeIfAbsent(e.clientId(), k -> new ArrayList<>()).add(e);
        }
        List<ClaimedEvent> main = new ArrayList<>();
        List<Group> candidates = new ArrayList<>();
        for (List<ClaimedEvent> run : runs.values()) {
            for (ClaimedEvent e : run) {
                if (groupOf.containsKey(e.id())) {
                    break;
                }
                main.add(e);
            }
            Group g = groupOf.get(run.get(0).id());
            if (g != null && !candidates.contains(g)) {
                candidates.add(g);
            }
        }
        // groups first, then suspects: a group holds other devices' commands that may well be innocent, a suspect only
        // its own device; but a suspect not probed for the longest company wait competes by age, so that groups that
        // keep failing cannot starve it; then the one probed longest ago (stable: claim order on ties)
        Instant overdue = now.minus(companyWait.apply(LONGEST_WAIT_AFTER));
        candidates.sort(Comparator.comparing((Group g) -> g.ids.size() == 1 && g.lastProbedAt.isAfter(overdue))
                .thenComparing((Group g) -> g.lastProbedAt));
        List<ClaimedEvent> probe = new ArrayList<>();
        List<ClaimedEvent> otherHalf = new ArrayList<>();
        boolean waiting = false;
        for (Group g : probeSlotFree && (mayProbe || main.isEmpty()) ? candidates : List.<Group>of()) {
            if (groupProbeOut && g.ids.size() == 1) {
                continue;
            }
            List<List<ClaimedEvent>> sendable = sendable(g, runs.values());
            // several devices, probed one at a time: first a device whose first event has no failure of its own
            // proven, then the one with the most commands waiting behind the group: a probe without the poison clears
            // them all (in claim order, six poisons' devices went before a busy neighbour's, whose commands waited
            // minutes)
            sendable.sort(Comparator.comparing(
                            (List<ClaimedEvent> p) -> p.get(0).centralFailures() > 0)
                    .thenComparing(
                            p -> -runs.getOrDefault(p.get(0).clientId(), p).size()));
            int total = sendable.stream().mapToInt(List::size).sum();
            // several devices: one device's events at a time (a hang costs ingest.timeout per probe that holds the
            // poison, and the devices answered in between are cleared at once); one device: half of its events
            int want = sendable.size() > 1 ? sendable.get(0).size() : Math.max(1, total / 2);
            if (g.limit > 0) {
                want = Math.min(want, g.limit);
            }
            List<ClaimedEvent> half = new ArrayList<>();
            List<ClaimedEvent> rest = new ArrayList<>();
            for (List<ClaimedEvent> prefix : sendable) {
                if (half.size() < want) {
                    half.addAll(prefix.subList(
                            0, Math.min(prefix.size(), want - half.size()))); // a device's later ones wait
                } else if (rest.isEmpty() || !g.comparisonFailed) {
                    // the comparison, if it has to be the group's: all its other devices, or one at a time once that
                    // failed (a hanging poison among them held the step for each device cleared)
                    rest.addAll(prefix);
                }
            }
            if (half.size() == 1
                    && rest.isEmpty()
                    && main.isEmpty()
                    && half.get(0).centralFailures() > 0
                    && now.isBefore(g.waitingSince.plus(companyWait.apply(g.unproven + 1)))) {
                // a proven suspect alone proves nothing and says nothing of central: it waits for other traffic a while
                // (an unproven one goes alone at once: its failure is central's as far as anyone can tell, and the
                // request backoff paces it)
                waiting = true;
                continue;
            }
            probe.addAll(half);
            otherHalf.addAll(rest);
            break;
        }
        List<ClaimedEvent> comparison = !main.isEmpty() ? main : probe.isEmpty() ? List.of() : otherHalf;
        Set<Long> sent = new HashSet<>();
        probe.forEach(e -> sent.add(e.id()));
        comparison.forEach(e -> sent.add(e.id()));
        List<ClaimedEvent> held =
                claim.stream().filter(e -> !sent.contains(e.id())).toList();
        return new Plan(List.copyOf(probe), List.copyOf(comparison), !main.isEmpty(), held, waiting && probe.isEmpty());
    }

    /** Per device whose run starts in the group, the events of the group at the start of its run. */
    private List<List<ClaimedEvent>> sendable(Group g, Collection<List<ClaimedEvent>> runs) {
        List<List<ClaimedEvent>> sendable = new ArrayList<>();
        for (List<ClaimedEvent> run : runs) {
            List<ClaimedEvent> prefix = new ArrayList<>();
            for (ClaimedEvent e : run) {
                if (groupOf.get(e.id()) != g) {
                    break;
                }
                prefix.add(e);
            }
            if (!prefix.isEmpty()) {
                sendable.add(prefix);
            }
        }
        return sendable;
    }

    /** Central answered these events (a final receipt, or retry_later): none of them makes it fail. */
    synchronized void answered(Collection<ClaimedEvent> events) {
        events.forEach(e -> forgetLocked(e.id()));
    }

    /** A request of unsuspected events failed in a way one event may cause: they become one group. */
    synchronized void failedTogether(List<ClaimedEvent> events, Instant now) {
        events.forEach(e -> forgetLocked(e.id()));
        add(events, now);
    }

    /**
     * The probe failed and the comparison was answered: the probe holds what makes central fail. A suspect's failure
     * counts ({@link AloneFailures}); a group narrows to the probe.
     */
    synchronized List<Settlement> proven(List<ClaimedEvent> probe, RequestOutcome.Failed failed, Instant now) {
        Group g = groupOf.get(probe.get(0).id());
        Set<Long> keep = new HashSet<>();
        probe.forEach(e -> keep.add(e.id()));
        if (g != null) {
            // the rest of the group was never answered: a group of its own, probed apart before it joins the main
            // request again (it may hold another poison, and a main request that hangs holds every device)
            List<Long> rest = new ArrayList<>();
            for (Long id : List.copyOf(g.ids)) {
                if (!keep.contains(id)) {
                    forgetLocked(id);
                    rest.add(id);
                }
            }
            if (!rest.isEmpty()) {
                addIds(rest, now);
            }
            g.lastProbedAt = now;
            g.waitingSince = now;
            g.limit = Math.max(1, probe.size() / 2);
            g.unproven = 0;
        }
        if (probe.size() > 1) {
            return probe.stream()
                    .<Settlement>map(e -> new Settlement.Release(
                            e.id(),
                            "central failed on these events while it answered others (" + failed.reason()
                                    + "); the one behind it is looked for"))
                    .toList();
        }
        ClaimedEvent e = probe.get(0);
        Settlement s = alone.settle(e, failed, now);
        if (!(s instanceof Settlement.FailedAlone)) {
            forgetLocked(e.id()); // parked or rejected: no longer open
        }
        return List.of(s);
    }

    /** The probe failed and nothing proves it its own: released, not counted; its group stays as it was. */
    synchronized List<Settlement> unproven(List<ClaimedEvent> probe, RequestOutcome.Failed failed, Instant now) {
        Group g = groupOf.get(probe.get(0).id());
        if (g != null) {
            g.lastProbedAt = now;
            g.waitingSince = now;
            g.limit = Math.max(1, probe.size() / 2); // looking further is no blame: only a count is
            g.unproven++;
        }
        return probe.stream()
                .<Settlement>map(e -> new Settlement.Release(
                        e.id(),
                        "not counted: central failed (" + failed.reason()
                                + ") and answered no other event right after"))
                .toList();
    }

    /**
     * The probe and the group's other half both failed: two poisons, or central failing. Each half becomes a group of
     * its own and is looked into further, so that one poison in each half cannot hide the other; nobody is blamed.
     */
    synchronized void bothHalvesFailed(List<ClaimedEvent> probe, List<ClaimedEvent> otherHalf, Instant now) {
        Group g = groupOf.get(probe.get(0).id());
        if (g != null) {
            g.limit = Math.max(1, probe.size() / 2);
        }
        otherHalf.forEach(e -> forgetLocked(e.id()));
        add(otherHalf, now);
        groups.peekLast().limit = Math.max(1, otherHalf.size() / 2);
        groups.peekLast().comparisonFailed = true;
    }

    /** Whether this probe is one event whose failures were proven before: its failing alone says nothing of central. */
    static boolean provenSuspect(List<ClaimedEvent> probe) {
        return probe.size() == 1 && probe.get(0).centralFailures() > 0;
    }

    /** The event is final or parked: nothing to remember. */
    synchronized void forget(long id) {
        forgetLocked(id);
    }

    /** Events under suspicion now. */
    synchronized int tracked() {
        return groupOf.size();
    }

    /** Groups (and suspects) now. */
    synchronized int groups() {
        return groups.size();
    }

    private void add(List<ClaimedEvent> events, Instant now) {
        addIds(events.stream().map(ClaimedEvent::id).toList(), now);
    }

    private void addIds(List<Long> ids, Instant now) {
        Group g = new Group(now);
        ids.forEach(id -> {
            g.ids.add(id);
            groupOf.put(id, g);
        });
        groups.addLast(g);
        while (groupOf.size() > MAX_TRACKED && groups.size() > 1) {
            Group oldest = groups.removeFirst();
            oldest.ids.forEach(groupOf::remove);
        }
    }

    private void forgetLocked(long id) {
        Group g = groupOf.remove(id);
        if (g != null) {
            g.ids.remove(id);
            if (g.ids.isEmpty()) {
                groups.remove(g);
            }
        }
    }
}
