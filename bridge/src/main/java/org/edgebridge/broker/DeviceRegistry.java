package org.edgebridge.broker;

import java.time.Clock;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the broker has seen of each client id that logged in since start: connections, takeovers, refused
 * publishes, subscriptions and later refused CONNECTs. Only a CONNECT that the bridge accepted adds a client id
 * (refused ones never did any harm worth remembering, and 15,000 of them with random ids left 15,000 entries
 * before); at most {@code mqtt.maxKnownDevices} are kept: a new one then replaces the one seen least recently,
 * preferring those not connected. Each entry is a fixed size (the last-minute counts are 60 buckets), so the
 * registry is bounded in bytes too. Thread-safe: fed from Moquette's interceptor and session-loop threads.
 */
public final class DeviceRegistry {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceRegistry.class);

    private final Clock clock;
    private final int stormThreshold;
    private final int maxDevices;
    private final ConcurrentMap<String, DeviceView.Builder> devices = new ConcurrentHashMap<>();
    private final AtomicLong forgotten = new AtomicLong();

    DeviceRegistry(Clock clock, int stormThreshold, int maxDevices) {
        this.clock = clock;
        this.stormThreshold = stormThreshold;
        this.maxDevices = maxDevices;
    }

    /**
     * A CONNECT of this client id was accepted.
     *
     * @return true if this CONNECT took over a live connection of the same client id
     */
    public boolean connected(String clientId, boolean cleanSession) {
        Instant now = clock.instant();
        DeviceView.Builder b = devices.get(clientId);
        if (b == null) {
            b = add(clientId);
        }
        boolean takeover = b.connected(now, cleanSession);
        if (takeover && b.takeoversLastMinute(now) == stormThreshold) {
            LOG.warn(
                    "takeover storm: client id {} took over its own session {} times within a minute "
                            + "(a device opening new connections again and again?)",
                    clientId,
                    stormThreshold);
        }
        return takeover;
    }

    private synchronized DeviceView.Builder add(String clientId) {
        DeviceView.Builder b = devices.get(clientId);
        if (b != null) {
            return b;
        }
        if (devices.size() >= maxDevices) {
            devices.values().stream()
                    .min(Comparator.comparing(DeviceView.Builder::isConnected)
                            .thenComparing(DeviceView.Builder::lastSeenAt))
                    .ifPresent(oldest -> {
                        devices.values().remove(oldest);
                        forgotten.incrementAndGet();
                    });
        }
        b = new DeviceView.Builder(clientId);
        devices.put(clientId, b);
        return b;
    }

    /** A CONNECT of a client id that logged in before was refused; nothing is recorded for one that never did. */
    public void refusedConnect(String clientId) {
        DeviceView.Builder b = devices.get(clientId);
        if (b != null) {
            b.refusedConnect();
        }
    }

    /** Takeovers of this client id within the last minute. */
    public long recentTakeovers(String clientId) {
        DeviceView.Builder b = devices.get(clientId);
        return b == null ? 0 : b.takeoversLastMinute(clock.instant());
    }

    public void disconnected(String clientId) {
        DeviceView.Builder b = devices.get(clientId);
        if (b != null) {
            b.disconnected(clock.instant());
        }
    }

    public void deniedPublish(String clientId) {
        DeviceView.Builder b = devices.get(clientId);
        if (b != null) {
            b.deniedPublish();
        }
    }

    public void deniedSubscribe(String clientId) {
        DeviceView.Builder b = devices.get(clientId);
        if (b != null) {
            b.deniedSubscribe();
        }
    }

    /** Client ids known now. */
    public int size() {
        return devices.size();
    }

    /** Client ids dropped to make room for new ones since start. */
    public long forgotten() {
        return forgotten.get();
    }

    public List<DeviceView> list() {
        Instant now = clock.instant();
        return devices.values().stream()
                .map(b -> b.view(now))
                .sorted(Comparator.comparing(DeviceView::clientId))
                .toList();
    }
}
