package org.edgebridge.intake;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The devices whose new commands were refused lately because they hold their share of the outbox
 * ({@code outbox.maxPendingPerDevice}, {@code outbox.maxPendingBytesPerDevice}): what the status page's alarm
 * {@code device_outbox_full} and the metric {@code edgebridge_outbox_device_full} name. At most {@link #MAX_NAMED}
 * devices are named (the most recently refused), so that a fleet of full devices cannot grow the page or the metric's
 * labels; every refusal is counted. A device leaves the list when one of its commands is stored again, or
 * {@link #FORGET_AFTER} after its last refusal. Written by the intake's writer thread, read by any.
 */
final class FullDevices {
    static final int MAX_NAMED = 10;
    static final Duration FORGET_AFTER = Duration.ofMinutes(5);

    /** A device refused for its share: its open commands and their bytes at its last refusal. */
    record FullDevice(String clientId, long openCommands, long openBytes, long lastRefusedNanos) {}

    private final Map<String, FullDevice> named = new LinkedHashMap<>(); // guarded by this; oldest refusal first
    private final AtomicLong refusals = new AtomicLong();

    synchronized void refused(String clientId, long openCommands, long openBytes) {
        refusals.incrementAndGet();
        named.remove(clientId);
        named.put(clientId, new FullDevice(clientId, openCommands, openBytes, System.nanoTime()));
        while (named.size() > MAX_NAMED) {
            named.remove(named.keySet().iterator().next());
        }
    }

    synchronized void stored(String clientId) {
        named.remove(clientId);
    }

    /** The devices named now, the most open commands first. */
    synchronized List<IntakeView.DeviceAtShare> now() {
        long now = System.nanoTime();
        named.values().removeIf(d -> now - d.lastRefusedNanos() > FORGET_AFTER.toNanos());
        List<FullDevice> list = new ArrayList<>(named.values());
        list.sort(Comparator.comparingLong(FullDevice::openCommands).reversed());
        return list.stream()
                .map(d -> new IntakeView.DeviceAtShare(d.clientId(), d.openCommands(), d.openBytes()))
                .toList();
    }

    long refusals() {
        return refusals.get();
    }
}
