package org.edgebridge.faults;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * N {@link CarefulDevice}s on real MQTT connections, each making {@code commandsEach} commands spread evenly
 * over {@code createOver} (with a random start offset so that devices do not publish in lockstep).
 *
 * <p>Thread: "device-fleet" ticks every device every 100 ms; owned here, ended by {@link #close()}.
 */
final class DeviceFleet implements AutoCloseable {
    private final List<CarefulDevice> devices = new CopyOnWriteArrayList<>();
    private final int port;
    private final IntSupplier bridgeLife;
    private final FleetCounters counters = new FleetCounters();
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "device-fleet");
        t.setDaemon(true);
        return t;
    });

    DeviceFleet(int deviceCount, int commandsEach, java.time.Duration createOver, int port, IntSupplier bridgeLife) {
        this(port, bridgeLife);
        add("sim", deviceCount, commandsEach, createOver);
    }

    /** A fleet with no device yet; {@link #add} brings them. */
    DeviceFleet(int port, IntSupplier bridgeLife) {
        this.port = port;
        this.bridgeLife = bridgeLife;
    }

    /**
     * Adds {@code deviceCount} new devices ({@code prefix-001}…), which connect at the next tick, each making
     * {@code commandsEach} commands over {@code createOver}; may be called while the fleet runs.
     */
    DeviceFleet add(String prefix, int deviceCount, int commandsEach, java.time.Duration createOver) {
        long now = System.nanoTime();
        long every = Math.max(1, createOver.toNanos() / Math.max(1, commandsEach));
        for (int i = 1; i <= deviceCount; i++) {
            long offset = ThreadLocalRandom.current().nextLong(every);
            devices.add(new CarefulDevice(String.format("%s-%03d", prefix, i), port, bridgeLife, counters, commandsEach,
                    now + offset, every));
        }
        return this;
    }

    DeviceFleet start() {
        ticker.scheduleWithFixedDelay(this::tick, 0, 100, TimeUnit.MILLISECONDS);
        return this;
    }

    private void tick() {
        long now = System.nanoTime();
        for (CarefulDevice d : devices) {
            try {
                d.tick(now);
            } catch (RuntimeException e) {
                System.err.println("device " + d.clientId() + " tick failed: " + e);
            }
        }
    }

    List<CarefulDevice> devices() {
        return devices;
    }

    FleetCounters counters() {
        return counters;
    }

    boolean allFinal() {
        return devices.stream().allMatch(CarefulDevice::allFinal);
    }

    long open() {
        return devices.stream().mapToLong(CarefulDevice::openCount).sum();
    }

    long connected() {
        return devices.stream().filter(CarefulDevice::isReady).count();
    }

    @Override
    public void close() throws InterruptedException {
        ticker.shutdownNow();
        ticker.awaitTermination(10, TimeUnit.SECONDS);
        devices.forEach(CarefulDevice::close);
    }
}
