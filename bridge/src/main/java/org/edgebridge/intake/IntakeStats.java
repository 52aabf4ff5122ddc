package org.edgebridge.intake;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.edgebridge.code.ReceiptCode;

/** Counters of the intake since start. Thread-safe. */
public final class IntakeStats {
    final AtomicLong received = new AtomicLong();
    final AtomicLong stored = new AtomicLong();
    final AtomicLong replayed = new AtomicLong();
    final AtomicLong retryLater = new AtomicLong();
    final AtomicLong storeFailures = new AtomicLong();
    private final Map<String, AtomicLong> rejectedByCode = new ConcurrentHashMap<>();

    void countRejected(ReceiptCode code) {
        rejectedByCode.computeIfAbsent(code.wire(), c -> new AtomicLong()).incrementAndGet();
    }

    public long received() {
        return received.get();
    }

    public long stored() {
        return stored.get();
    }

    public long replayed() {
        return replayed.get();
    }

    public long retryLater() {
        return retryLater.get();
    }

    public long storeFailures() {
        return storeFailures.get();
    }

    public Map<String, Long> rejectedByCode() {
        Map<String, Long> copy = new TreeMap<>();
        rejectedByCode.forEach((code, n) -> copy.put(code, n.get()));
        return copy;
    }
}
