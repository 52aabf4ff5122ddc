package org.edgebridge.admin;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.edgebridge.worker.FatalErrors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last hour at a glance for the status page ({@code GET /api/activity}): every {@link #INTERVAL} the backlog (open
 * commands), commands stored and final receipts sent per second since the sample before, and whether the circuit
 * breaker to central is open; kept in memory in a ring of {@link #MAX_SAMPLES} samples (one hour; about 40 bytes each,
 * 15 KB in all), plus the moments the breaker opened within that hour (at most {@link #MAX_SAMPLES} of them).
 * Nothing here is durable: a restart starts an empty hour.
 *
 * <p>Threads: one daemon thread of its own, {@code activity-sampler}, started by {@link #start} and stopped by
 * {@link #close}; the breaker's listener only appends to the list of openings. Thread-safe.
 */
final class ActivityHistory implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ActivityHistory.class);
    static final Duration INTERVAL = Duration.ofSeconds(10);
    static final int MAX_SAMPLES = 360;
    private static final String FINALS = "edgebridge.receipt.finals";

    /** One sample; the rates are null in the first one (nothing to compare with). */
    record Sample(
            Instant at,
            long open,
            @Nullable Double inPerSecond,
            @Nullable Double finalsPerSecond,
            boolean breakerOpen) {}

    private final Clock clock;
    private final LongSupplier open;
    private final LongSupplier stored;
    private final MeterRegistry meters;
    private final CircuitBreakerRegistry breakers;
    private final ArrayDeque<Sample> samples = new ArrayDeque<>(); // guarded by this
    private final ArrayDeque<Instant> openings = new ArrayDeque<>(); // guarded by this
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "activity-sampler");
        t.setDaemon(true);
        return t;
    });
    private @Nullable Instant lastAt; // only on the sampler's thread
    private long lastStored;
    private double lastFinals;

    ActivityHistory(
            Clock clock,
            LongSupplier open,
            LongSupplier stored,
            MeterRegistry meters,
            CircuitBreakerRegistry breakers) {
        this.clock = clock;
        this.open = open;
        this.stored = stored;
        this.meters = meters;
        this.breakers = breakers;
        for (CircuitBreaker b : breakers.getAllCircuitBreakers()) {
            b.getEventPublisher().onStateTransition(e -> {
                if (e.getStateTransition().getToState() == CircuitBreaker.State.OPEN) {
                    opened(clock.instant());
                }
            });
        }
    }

    /** Takes the first sample now and one every {@link #INTERVAL}. */
    void start() {
        timer.scheduleAtFixedRate(
                FatalErrors.scheduled(this::sampleSafely), 0, INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
    }

    private synchronized void opened(Instant at) {
        openings.addLast(at);
        trim(at);
    }

    private void sampleSafely() {
        try {
            sample();
        } catch (RuntimeException e) {
            LOG.warn("activity sample failed (the status page's chart misses one point): {}", e.toString());
        }
    }

    /** One sample now (the sampler thread calls it every {@link #INTERVAL}; tests call it by hand). */
    void sample() {
        Instant now = clock.instant();
        long storedNow = stored.getAsLong();
        double finalsNow = meters.find(FINALS).counters().stream()
                .mapToDouble(Counter::count)
                .sum();
        boolean breakerOpen =
                breakers.getAllCircuitBreakers().stream().anyMatch(b -> b.getState() == CircuitBreaker.State.OPEN);
        Double in = null;
        Double out = null;
        if (lastAt != null) {
            double seconds = Math.max(0.001, Duration.between(lastAt, now).toMillis() / 1000.0);
            in = (storedNow - lastStored) / seconds;
            out = (finalsNow - lastFinals) / seconds;
        }
        lastAt = now;
        lastStored = storedNow;
        lastFinals = finalsNow;
        add(new Sample(now, open.getAsLong(), in, out, breakerOpen));
    }

    private synchronized void add(Sample s) {
        samples.addLast(s);
        while (samples.size() > MAX_SAMPLES) {
            samples.removeFirst();
        }
        trim(s.at());
    }

    /** Openings older than the hour of samples go; at most {@link #MAX_SAMPLES} are kept. */
    private void trim(Instant now) {
        Instant from = now.minus(INTERVAL.multipliedBy(MAX_SAMPLES));
        while (!openings.isEmpty()
                && (openings.size() > MAX_SAMPLES || openings.peekFirst().isBefore(from))) {
            openings.removeFirst();
        }
    }

    /** The body of {@code GET /api/activity}. */
    synchronized Map<String, Object> snapshot() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("now", clock.instant());
        body.put("intervalSeconds", INTERVAL.toSeconds());
        body.put("maxSamples", MAX_SAMPLES);
        body.put("samples", new ArrayList<>(samples));
        body.put("breakerOpened", List.copyOf(openings));
        return body;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
