package org.edgebridge.broker;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connections closed for breaking MQTT itself (malformed or oversized packets, no CONNECT first). Counted, and
 * logged at most once a minute with the count, so that a flood cannot fill the disk with log lines.
 * Thread-safe.
 */
public final class ProtocolViolations {
    private static final Logger LOG = LoggerFactory.getLogger(ProtocolViolations.class);
    private static final long LOG_EVERY_NANOS = 60_000_000_000L;

    private final AtomicLong total = new AtomicLong();
    private final AtomicLong sinceLog = new AtomicLong();
    private final AtomicLong loggedAt = new AtomicLong(System.nanoTime() - LOG_EVERY_NANOS);

    public void record(String what, Object remote) {
        total.incrementAndGet();
        sinceLog.incrementAndGet();
        long last = loggedAt.get();
        long now = System.nanoTime();
        if (now - last >= LOG_EVERY_NANOS && loggedAt.compareAndSet(last, now)) {
            LOG.warn(
                    "closed {} connection(s) for protocol violations in the last minute; latest: {} from {}",
                    sinceLog.getAndSet(0),
                    what,
                    remote);
        }
    }

    public long total() {
        return total.get();
    }
}
