package org.edgebridge.central;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What central saw of its requests, for tests and the bench: one line per request (at most a million) and the body
 * bytes as sent and as inflated. Thread-safe.
 */
final class IngestLog {
    private static final int MAX_REQUESTS = 1_000_000;

    private final Clock clock;
    private final List<CentralSim.Request> requests = new ArrayList<>();
    private final AtomicLong gzipRequests = new AtomicLong();
    private final AtomicLong wireBytes = new AtomicLong();
    private final AtomicLong inflatedBytes = new AtomicLong();

    IngestLog(Clock clock) {
        this.clock = clock;
    }

    void request(int events, int status) {
        synchronized (requests) {
            if (requests.size() < MAX_REQUESTS) {
                requests.add(new CentralSim.Request(clock.instant(), events, status));
            }
        }
    }

    void body(long sent, long inflated, boolean gzip) {
        wireBytes.addAndGet(sent);
        inflatedBytes.addAndGet(inflated);
        if (gzip) {
            gzipRequests.incrementAndGet();
        }
    }

    List<CentralSim.Request> requests() {
        synchronized (requests) {
            return List.copyOf(requests);
        }
    }

    long gzipRequests() {
        return gzipRequests.get();
    }

    long[] bodyBytes() {
        return new long[] {wireBytes.get(), inflatedBytes.get()};
    }
}
