package org.edgebridge.broker;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Optional;

/**
 * One client id as the broker has seen it since start.
 *
 * @param takeovers CONNECTs that found the client id already connected (the old connection was closed)
 * @param takeoversLastMinute the same, in the last 60 seconds: a storm shows here first
 * @param connectsLastMinute every CONNECT of this client id in the last 60 seconds
 * @param refusedConnects CONNECTs refused by the bridge (certificate mismatch, takeover throttle)
 */
public record DeviceView(
        String clientId,
        boolean connected,
        boolean cleanSession,
        Optional<Instant> lastConnectedAt,
        Optional<Instant> lastSeenAt,
        long connects,
        long connectsLastMinute,
        long takeovers,
        long takeoversLastMinute,
        long deniedPublishes,
        long deniedSubscribes,
        long refusedConnects) {

    /** Mutable state behind a view; synchronized, updated from broker threads. */
    static final class Builder {
        private static final Duration WINDOW = Duration.ofMinutes(1);
        private static final int MAX_REMEMBERED = 10_000;

        private final String clientId;
        private int openConnections;
        private boolean cleanSession;
        private Instant lastConnectedAt;
        private Instant lastSeenAt;
        private long connects;
        private long takeovers;
        private long deniedPublishes;
        private long deniedSubscribes;
        private long refusedConnects;
        private final ArrayDeque<Instant> recentConnects = new ArrayDeque<>();
        private final ArrayDeque<Instant> recentTakeovers = new ArrayDeque<>();

        Builder(String clientId) {
            this.clientId = clientId;
        }

        /** @return true if this CONNECT took over a live connection */
        synchronized boolean connected(Instant now, boolean clean) {
            boolean takeover = openConnections > 0;
            if (takeover) {
                takeovers++;
                remember(recentTakeovers, now);
            }
            openConnections = 1;
            connects++;
            remember(recentConnects, now);
            cleanSession = clean;
            lastConnectedAt = now;
            lastSeenAt = now;
            return takeover;
        }

        synchronized void disconnected(Instant now) {
            openConnections = 0;
            lastSeenAt = now;
        }

        synchronized void deniedPublish() {
            deniedPublishes++;
        }

        synchronized void deniedSubscribe() {
            deniedSubscribes++;
        }

        synchronized void refusedConnect() {
            refusedConnects++;
        }

        synchronized long takeoversSince(Instant since) {
            return count(recentTakeovers, since);
        }

        synchronized DeviceView view(Instant now) {
            Instant since = now.minus(WINDOW);
            return new DeviceView(clientId, openConnections > 0, cleanSession, Optional.ofNullable(lastConnectedAt),
                    Optional.ofNullable(lastSeenAt), connects, count(recentConnects, since), takeovers,
                    count(recentTakeovers, since), deniedPublishes, deniedSubscribes, refusedConnects);
        }

        private static void remember(ArrayDeque<Instant> times, Instant now) {
            times.addLast(now);
            Instant since = now.minus(WINDOW);
            while (times.size() > MAX_REMEMBERED || (!times.isEmpty() && times.peekFirst().isBefore(since))) {
                times.removeFirst();
            }
        }

        private static long count(ArrayDeque<Instant> times, Instant since) {
            return times.stream().filter(t -> !t.isBefore(since)).count();
        }
    }
}
