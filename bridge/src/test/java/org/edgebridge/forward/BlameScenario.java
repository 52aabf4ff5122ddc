package org.edgebridge.forward;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * One generated case of the blame simulation ({@link BlameSimulationTest}), and its ground truth: which commands
 * really are poisons, what central does when, when the bridge restarts. Made from a seed alone, so that a printed
 * seed is the whole case.
 *
 * @param arrivals the commands devices send, in time order
 * @param central what central does to every request, by time (healthy outside the segments)
 * @param poisons the poison commands (by commandId) and what central does to any request that holds one
 * @param restarts when the bridge stops, by kill -9 or SIGTERM, and starts again
 * @param healthyFrom from when central is healthy to the end (only poisons still fail), with traffic for proof
 * @param end when the case ends
 */
record BlameScenario(
        long seed,
        List<Arrival> arrivals,
        List<Segment> central,
        Map<String, Failure> poisons,
        List<Restart> restarts,
        Instant healthyFrom,
        Instant end) {

    static final Instant START = Instant.parse("2026-12-01T00:00:00Z");

    /** What central does to a request: each one a way real centrals, gateways and networks fail. */
    enum Failure {
        S500,
        S503,
        S400,
        S403,
        S413,
        S422,
        S409,
        RESET,
        TIMEOUT,
        NO_RECEIPTS,
        JUNK_RECEIPTS,
        RETRY_LATER,
        MAINTENANCE_200;

        /** A failure the bridge may end by parking or rejecting the event it follows (every one but retry_later). */
        boolean canBlame() {
            return this != RETRY_LATER;
        }
    }

    record Arrival(Instant at, String device, String commandId, Optional<Instant> expiresAt) {}

    /** From {@code from} to {@code to} central fails every request ({@code share} 1) or a random share of them. */
    record Segment(Instant from, Instant to, Failure failure, double share) {
        boolean covers(Instant t) {
            return !t.isBefore(from) && t.isBefore(to);
        }
    }

    record Restart(Instant at, boolean graceful) {}

    /** The devices that hold a poison. */
    List<String> poisonedDevices() {
        return arrivals.stream()
                .filter(a -> poisons.containsKey(a.commandId()))
                .map(Arrival::device)
                .distinct()
                .toList();
    }

    String describe() {
        return "seed " + seed + ": "
                + arrivals.stream().map(Arrival::device).distinct().count() + " devices, "
                + arrivals.size() + " commands, central " + central + ", poisons " + poisons + ", restarts " + restarts
                + ", healthy from +" + Duration.between(START, healthyFrom).toSeconds() + " s";
    }

    /** A case from a seed: traffic, central over time, 0-8 poisons, restarts. */
    static BlameScenario generate(long seed) {
        Random r = new Random(seed);
        int shape = r.nextInt(4);
        int devices = shape == 0
                ? 1 + r.nextInt(3)
                : shape == 1 ? 2 + r.nextInt(20) : shape == 2 ? 10 + r.nextInt(60) : 50 + r.nextInt(150);
        Duration active = Duration.ofSeconds(60 + r.nextInt(600));
        List<Arrival> arrivals = new ArrayList<>();
        int budget = 60 + r.nextInt(400);
        boolean quiet = r.nextInt(3) == 0;
        for (int d = 0; d < devices && arrivals.size() < budget; d++) {
            String device = "dev-" + d;
            int commands = quiet ? 1 + r.nextInt(2) : 1 + r.nextInt(Math.max(1, budget / devices * 2));
            long at = r.nextInt((int) active.toMillis());
            for (int c = 0; c < commands && arrivals.size() < budget && at < active.toMillis(); c++) {
                Optional<Instant> expires = r.nextInt(12) == 0
                        ? Optional.of(START.plusMillis(at + 5_000 + r.nextInt(300_000)))
                        : Optional.empty();
                arrivals.add(new Arrival(START.plusMillis(at), device, device + "-c" + c, expires));
                at += r.nextInt(3) == 0 ? r.nextInt(50) : r.nextInt(20_000);
            }
        }
        List<Segment> central = new ArrayList<>();
        int segments = r.nextInt(5);
        for (int i = 0; i < segments; i++) {
            long from = r.nextInt((int) active.toMillis());
            long length = r.nextInt(3) == 0 ? 1_000 + r.nextInt(10_000) : 10_000 + r.nextInt(400_000);
            Failure f = Failure.values()[r.nextInt(Failure.values().length)];
            double share = r.nextInt(3) == 0 ? 0.1 + r.nextDouble() * 0.5 : 1.0;
            central.add(new Segment(START.plusMillis(from), START.plusMillis(from + length), f, share));
        }
        Map<String, Failure> poisons = new LinkedHashMap<>();
        int poisonCount = r.nextInt(3) == 0 ? 0 : 1 + r.nextInt(8);
        for (int i = 0; i < poisonCount && !arrivals.isEmpty(); i++) {
            Arrival a = arrivals.get(r.nextInt(arrivals.size()));
            Failure f;
            do {
                f = Failure.values()[r.nextInt(Failure.values().length)];
            } while (!f.canBlame());
            poisons.put(a.commandId(), f);
        }
        List<Restart> restarts = new ArrayList<>();
        int restartCount = r.nextInt(3) == 0 ? 1 + r.nextInt(3) : 0;
        for (int i = 0; i < restartCount; i++) {
            restarts.add(new Restart(START.plusMillis(r.nextInt((int) active.toMillis() + 60_000)), r.nextBoolean()));
        }
        restarts.sort(Comparator.comparing(Restart::at));
        Instant healthyFrom = central.stream()
                        .map(Segment::to)
                        .max(Comparator.naturalOrder())
                        .orElse(START)
                        .isAfter(START.plus(active))
                ? central.stream()
                        .map(Segment::to)
                        .max(Comparator.naturalOrder())
                        .orElseThrow()
                : START.plus(active);
        healthyFrom = healthyFrom.plusSeconds(1);
        // after the faults: central healthy, a neighbour that sends now and then, so that every poison can be proven
        Instant end = healthyFrom.plus(TAIL);
        long t = Duration.between(START, healthyFrom).toMillis();
        int n = 0;
        while (START.plusMillis(t).isBefore(end.minusSeconds(60))) {
            arrivals.add(new Arrival(START.plusMillis(t), "neighbour", "neighbour-c" + n++, Optional.empty()));
            t += 2_000 + r.nextInt(8_000);
        }
        arrivals.sort(Comparator.comparing(Arrival::at));
        return new BlameScenario(
                seed,
                List.copyOf(arrivals),
                List.copyOf(central),
                Map.copyOf(poisons),
                List.copyOf(restarts),
                healthyFrom,
                end);
    }

    /**
     * A fixed case: {@code devices} devices send one command a second each for {@code sending}; the poisons (command
     * ids H-1, H-2, ... on devices dev-h1, dev-h2, ...) go first; then a neighbour sends every 5 s. Central is healthy
     * throughout but for the poisons.
     */
    static BlameScenario steady(long seed, int devices, Duration sending, List<Failure> poisonFailures) {
        List<Arrival> arrivals = new ArrayList<>();
        Map<String, Failure> poisons = new LinkedHashMap<>();
        for (int p = 0; p < poisonFailures.size(); p++) {
            String id = "H-" + (p + 1);
            arrivals.add(new Arrival(START.plusMillis(100L * p), "dev-h" + (p + 1), id, Optional.empty()));
            poisons.put(id, poisonFailures.get(p));
        }
        for (long t = 1_000; t <= sending.toMillis(); t += 1_000) {
            for (int d = 1; d <= devices; d++) {
                arrivals.add(new Arrival(
                        START.plusMillis(t + d * 10L), "dev-" + d, "D" + d + "-" + t / 1_000, Optional.empty()));
            }
        }
        Instant healthyFrom = START.plusSeconds(1);
        Instant end = START.plus(sending).plus(TAIL);
        for (long t = sending.toMillis() + 5_000; START.plusMillis(t).isBefore(end.minusSeconds(60)); t += 5_000) {
            arrivals.add(new Arrival(START.plusMillis(t), "neighbour", "neighbour-" + t / 1_000, Optional.empty()));
        }
        arrivals.sort(Comparator.comparing(Arrival::at));
        return new BlameScenario(
                seed, List.copyOf(arrivals), List.of(), Map.copyOf(poisons), List.of(), healthyFrom, end);
    }

    /** How long central is healthy at the end of every case: long enough for every poison to be parked. */
    static final Duration TAIL = Duration.ofMinutes(45);
}
