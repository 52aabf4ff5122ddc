package org.edgebridge.broker;

import java.time.Clock;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * What the broker has seen of each client id since start: connections, takeovers, refused publishes and
 * subscriptions. Thread-safe: fed from Moquette's interceptor and session-loop threads.
 */
public final class DeviceRegistry {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(DeviceRegistry.class);

    private final Clock clock;
    private final int stormThreshold;
    private final ConcurrentMap<String, DeviceView.Builder> devices = new ConcurrentHashMap<>();

    DeviceRegistry(Clock clock, int stormThreshold) {
        this.clock = clock;
        this.stormThreshold = stormThreshold;
    }

    /** @return true if this CONNECT took over a live connection of the same client id */
    public boolean connected(String clientId, boolean cleanSession) {
        Instant now = clock.instant();
        DeviceView.Builder b = devices.computeIfAbsent(clientId, DeviceView.Builder::new);
        boolean takeover = b.connected(now, cleanSession);
        if (takeover && b.takeoversSince(now.minus(java.time.Duration.ofMinutes(1))) == stormThreshold) {
            LOG.warn("takeover storm: client id {} took over its own session {} times within a minute "
                    + "(a device opening new connections again and again?)", clientId, stormThreshold);
        }
        return takeover;
    }

    public void refusedConnect(String clientId) {
        devices.computeIfAbsent(clientId, DeviceView.Builder::new).refusedConnect();
    }

    /** Takeovers of this client id within the last {@code window}. */
    public long recentTakeovers(String clientId, java.time.Duration window) {
        DeviceView.Builder b = devices.get(clientId);
        return b == null ? 0 : b.takeoversSince(clock.instant().minus(window));
    }

    public void disconnected(String clientId) {
        DeviceView.Builder b = devices.get(clientId);
        if (b != null) {
            b.disconnected(clock.instant());
        }
    }

    public void deniedPublish(String clientId) {
        devices.computeIfAbsent(clientId, DeviceView.Builder::new).deniedPublish();
    }

    public void deniedSubscribe(String clientId) {
        devices.computeIfAbsent(clientId, DeviceView.Builder::new).deniedSubscribe();
    }

    public List<DeviceView> list() {
        Instant now = clock.instant();
        return devices.values().stream().map(b -> b.view(now))
                .sorted(Comparator.comparing(DeviceView::clientId)).toList();
    }

}
