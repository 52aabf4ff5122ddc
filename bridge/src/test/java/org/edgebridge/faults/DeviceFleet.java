package org.edgebridge.faults;

import com.hivemq.client.mqtt.MqttClientSslConfig;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.device.FleetCounters;

/**
 * N careful {@link DeviceSimulator}s on real MQTT connections (keep-alive 5 s), each making {@code commandsEach} commands spread evenly
 * over {@code createOver} (with a random start offset so that devices do not publish in lockstep).
 *
 * <p>Thread: "device-fleet" ticks every device every 100 ms; owned here, ended by {@link #close()}.
 */
final class DeviceFleet implements AutoCloseable {
    static final Duration KEEP_ALIVE = Duration.ofSeconds(5);
    private final List<DeviceSimulator> devices = new CopyOnWriteArrayList<>();
    /** Where the devices added next connect, and over TLS with what ({@code null}: plain MQTT). */
    private int addPort;

    private MqttClientSslConfig tls;
    private final IntSupplier bridgeLife;
    private final FleetCounters counters = new FleetCounters();
    private boolean behindBalancer;
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "device-fleet");
        t.setDaemon(true);
        return t;
    });

    DeviceFleet(int deviceCount, int commandsEach, Duration createOver, int port, IntSupplier bridgeLife) {
        this(port, bridgeLife);
        add("sim", deviceCount, commandsEach, createOver);
    }

    /** A fleet with no device yet; {@link #add} brings them. */
    DeviceFleet(int port, IntSupplier bridgeLife) {
        this.addPort = port;
        this.bridgeLife = bridgeLife;
    }

    /** The devices added from now on reach several boxes through a balancer ({@link org.edgebridge.device.DeviceBuilder#behindBalancer}). */
    DeviceFleet behindBalancer() {
        this.behindBalancer = true;
        return this;
    }

    /** The devices added from now on connect to {@code port}, over TLS with {@code tls} ({@code null}: plain MQTT). */
    DeviceFleet via(int port, MqttClientSslConfig tls) {
        this.addPort = port;
        this.tls = tls;
        return this;
    }

    /**
     * Adds {@code deviceCount} new devices ({@code prefix-001}…), which connect at the next tick, each making
     * {@code commandsEach} commands over {@code createOver}; may be called while the fleet runs.
     */
    DeviceFleet add(String prefix, int deviceCount, int commandsEach, Duration createOver) {
        long now = System.nanoTime();
        long every = Math.max(1, createOver.toNanos() / Math.max(1, commandsEach));
        for (int i = 1; i <= deviceCount; i++) {
            long offset = ThreadLocalRandom.current().nextLong(every);
            devices.add(DeviceSimulator.builder(String.format("%s-%03d", prefix, i), addPort)
                    .tls(tls)
                    .keepAlive(KEEP_ALIVE)
                    .connectTimeout(Duration.ofSeconds(5))
                    .bridgeLife(bridgeLife)
                    .counters(counters)
                    .behindBalancer(behindBalancer)
                    .careful(commandsEach, now + offset, every)
                    .build());
        }
        return this;
    }

    DeviceFleet start() {
        ticker.scheduleWithFixedDelay(this::tick, 0, 100, TimeUnit.MILLISECONDS);
        return this;
    }

    private void tick() {
        long now = System.nanoTime();
        for (DeviceSimulator d : devices) {
            try {
                d.tick(now);
            } catch (RuntimeException e) {
                System.err.println("device " + d.clientId() + " tick failed: " + e);
            }
        }
    }

    List<DeviceSimulator> devices() {
        return devices;
    }

    FleetCounters counters() {
        return counters;
    }

    /** Every device makes the commands it has not made yet at its next tick (a burst), not over the rest of createOver. */
    void createTheRestNow() {
        devices.forEach(d -> d.outbox().createTheRestNow());
    }

    boolean allFinal() {
        return devices.stream().allMatch(d -> d.outbox().allFinal());
    }

    long open() {
        return devices.stream().mapToLong(d -> d.outbox().openCount()).sum();
    }

    long connected() {
        return devices.stream().filter(DeviceSimulator::isReady).count();
    }

    @Override
    public void close() throws InterruptedException {
        ticker.shutdownNow();
        ticker.awaitTermination(10, TimeUnit.SECONDS);
        devices.forEach(DeviceSimulator::close);
    }
}
