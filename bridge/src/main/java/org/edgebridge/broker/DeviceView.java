package org.edgebridge.broker;

import java.time.Instant;
import java.util.Optional;

/**
 * One client id as the broker has seen it since start.
 *
 * @param takeovers CONNECTs that found the client id already connected (the old connection was closed)
 */
public record DeviceView(
        String clientId,
        boolean connected,
        boolean cleanSession,
        Optional<Instant> lastConnectedAt,
        Optional<Instant> lastSeenAt,
        long connects,
        long takeovers,
        long deniedPublishes,
        long deniedSubscribes) {

    /** Mutable state behind a view; synchronized, updated from broker threads. */
    static final class Builder {
        private final String clientId;
        private int openConnections;
        private boolean cleanSession;
        private Instant lastConnectedAt;
        private Instant lastSeenAt;
        private long connects;
        private long takeovers;
        private long deniedPublishes;
        private long deniedSubscribes;

        Builder(String clientId) {
            this.clientId = clientId;
        }

        synchronized void connected(Instant now, boolean clean) {
            if (openConnections > 0) {
                takeovers++;
            } else {
                openConnections = 1;
            }
            connects++;
            cleanSession = clean;
            lastConnectedAt = now;
            lastSeenAt = now;
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

        synchronized DeviceView view() {
            return new DeviceView(clientId, openConnections > 0, cleanSession, Optional.ofNullable(lastConnectedAt),
                    Optional.ofNullable(lastSeenAt), connects, takeovers, deniedPublishes, deniedSubscribes);
        }
    }
}
