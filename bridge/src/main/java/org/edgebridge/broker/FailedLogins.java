package org.edgebridge.broker;

import java.time.Clock;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Failed password logins per client id and per source address, in one-minute windows. A client id or an address
 * that reached its limit is throttled until its window ends: its CONNECTs are refused (CONNACK 3) without a
 * password check, so that guessing costs the attacker time and the bridge nothing.
 *
 * <p>Thread-safe. Memory is bounded: past {@value #MAX_TRACKED} keys, ended windows are dropped, and while every
 * key is fresh new ones are not tracked (the address limit still holds for them).
 */
final class FailedLogins {
    static final long WINDOW_MILLIS = 60_000;
    private static final int MAX_TRACKED = 50_000;

    private final Clock clock;
    private final int perClientId;
    private final int perAddress;
    private final ConcurrentMap<String, Window> byClientId = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Window> byAddress = new ConcurrentHashMap<>();

    private record Window(long startMillis, int failures) {}

    /** @param perClientId failures per minute that throttle a client id; @param perAddress the same for an address */
    FailedLogins(Clock clock, int perClientId, int perAddress) {
        this.clock = clock;
        this.perClientId = perClientId;
        this.perAddress = perAddress;
    }

    boolean throttled(String clientId, String address) {
        long now = clock.millis();
        return reached(byClientId, clientId, perClientId, now) || reached(byAddress, address, perAddress, now);
    }

    void failed(String clientId, String address) {
        long now = clock.millis();
        count(byClientId, clientId, now);
        count(byAddress, address, now);
    }

    private static boolean reached(ConcurrentMap<String, Window> windows, String key, int limit, long now) {
        Window w = key == null ? null : windows.get(key);
        return w != null && now - w.startMillis() < WINDOW_MILLIS && w.failures() >= limit;
    }

    private static void count(ConcurrentMap<String, Window> windows, String key, long now) {
        if (key == null) {
            return;
        }
        if (windows.size() >= MAX_TRACKED && !windows.containsKey(key)) {
            windows.values().removeIf(w -> now - w.startMillis() >= WINDOW_MILLIS);
            if (windows.size() >= MAX_TRACKED) {
                return;
            }
        }
        windows.merge(
                key,
                new Window(now, 1),
                (old, one) -> now - old.startMillis() >= WINDOW_MILLIS
                        ? one
                        : new Window(old.startMillis(), old.failures() + 1));
    }
}
