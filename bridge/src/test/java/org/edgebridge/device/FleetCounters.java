package org.edgebridge.device;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** What the simulated devices did and saw, summed over the fleet. Thread-safe. */
public final class FleetCounters {
    public final LongAdder created = new LongAdder();
    public final LongAdder resends = new LongAdder();
    public final LongAdder publishFailures = new LongAdder();
    public final LongAdder connectAttempts = new LongAdder();
    public final LongAdder connects = new LongAdder();
    public final LongAdder sessionsNotPresent = new LongAdder();
    public final LongAdder linksLost = new LongAdder();
    public final LongAdder receipts = new LongAdder();
    public final LongAdder replayed = new LongAdder();
    private final Map<String, LongAdder> retryLaterByCode = new ConcurrentHashMap<>();

    public void retryLater(String code) {
        retryLaterByCode.computeIfAbsent(code, k -> new LongAdder()).increment();
    }

    /** retry_later receipts by code so far. */
    public Map<String, Long> retryLater() {
        Map<String, Long> copy = new TreeMap<>();
        retryLaterByCode.forEach((code, n) -> copy.put(code, n.sum()));
        return copy;
    }
}
