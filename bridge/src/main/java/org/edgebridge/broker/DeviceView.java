package org.edgebridge.broker;

import java.time.Instant;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One client id as the broker has seen it since start.
 *
 * @param takeovers CONNECTs that found the client id already connected (the old connection was closed)
 * @param takeoversLastMinute the same, in the last 60 seconds: a storm shows here first
 * @param connectsLastMinute every CONNECT of this client id in the last 60 seconds
 * @param refusedConnects CONNECTs refused by the bridge (certificate mismatch, will, takeover throttle) after this
 *     client id had connected once: a client id that never logged in is not in the registry
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
        private final String clientId;
        private int openConnections;
        private boolean cleanSession;
        private @Nullable Instant lastConnectedAt;
        private @Nullable Instant lastSeenAt;
        private long connects;
        private long takeovers;
        private long deniedPublishes;
        private long deniedSubscribes;
        private long refusedConnects;
        private final LastMinuteCount recentConnects = new LastMinuteCount();
        private final LastMinuteCount recentTakeovers = new LastMinuteCount();

        Builder(String clientId) {
            this.clientId = clientId;
        }

        /** @return true if this CONNECT took over a live connection */
        synchronized boolean connected(Instant now, boolean clean) {
            boolean takeover = openConnections > 0;
            if (takeover) {
                takeovers++;
                recentTakeovers.add(now);
            }
            openConnections = 1;
            connects++;
            recentConnects.add(now);
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

        /** Takeovers in the last minute up to {@code now}. */
        synchronized long takeoversLastMinute(Instant now) {
            return recentTakeovers.at(now);
        }

        synchronized boolean isConnected() {
            return openConnections > 0;
        }

        synchronized Instant lastSeenAt() {
            return lastSeenAt == null ? Instant.MIN : lastSeenAt;
        }

        synchronized DeviceView view(Instant now) {
            return new DeviceView(
                    clientId,
                    openConnections > 0,
                    cleanSession,
                    Optional.ofNullable(lastConnectedAt),
                    Optional.ofNullable(lastSeenAt),
                    connects,
                    recentConnects.at(now),
                    takeovers,
                    recentTakeovers.at(now),
                    deniedPublishes,
                    deniedSubscribes,
                    refusedConnects);
        }
    }
}
