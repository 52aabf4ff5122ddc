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
    private final Clock clock;
    private final ConcurrentMap<String, DeviceView.Builder> devices = new ConcurrentHashMap<>();

    DeviceRegistry(Clock clock) {
        this.clock = clock;
    }

    void connected(String clientId, boolean cleanSession) {
        Instant now = clock.instant();
        devices.computeIfAbsent(clientId, DeviceView.Builder::new).connected(now, cleanSession);
    }

    void disconnected(String clientId) {
        DeviceView.Builder b = devices.get(clientId);
        if (b != null) {
            b.disconnected(clock.instant());
        }
    }

    void deniedPublish(String clientId) {
        devices.computeIfAbsent(clientId, DeviceView.Builder::new).deniedPublish();
    }

    void deniedSubscribe(String clientId) {
        devices.computeIfAbsent(clientId, DeviceView.Builder::new).deniedSubscribe();
    }

    public List<DeviceView> list() {
        return devices.values().stream().map(DeviceView.Builder::view)
                .sorted(Comparator.comparing(DeviceView::clientId)).toList();
    }

    public long connectedCount() {
        return devices.values().stream().filter(b -> b.view().connected()).count();
    }
}
