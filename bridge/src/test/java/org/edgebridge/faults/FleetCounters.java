package org.edgebridge.faults;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** What the simulated devices did and saw, summed over the fleet. Thread-safe. */
final class FleetCounters {
    final LongAdder created = new LongAdder();
    final LongAdder resends = new LongAdder();
    final LongAdder publishFailures = new LongAdder();
    final LongAdder connectAttempts = new LongAdder();
    final LongAdder connects = new LongAdder();
    final LongAdder sessionsNotPresent = new LongAdder();
    final LongAdder linksLost = new LongAdder();
    final LongAdder receipts = new LongAdder();
    final LongAdder replayed = new LongAdder();
    private final Map<String, LongAdder> retryLaterByCode = new ConcurrentHashMap<>();

    void retryLater(String code) {
        retryLaterByCode.computeIfAbsent(code, k -> new LongAdder()).increment();
    }

    /** retry_later receipts by code so far. */
    Map<String, Long> retryLater() {
        Map<String, Long> copy = new TreeMap<>();
        retryLaterByCode.forEach((code, n) -> copy.put(code, n.sum()));
        return copy;
    }
}
