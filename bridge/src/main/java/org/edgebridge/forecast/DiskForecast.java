package org.edgebridge.forecast;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.edgebridge.worker.GuardedRuns;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Samples the outbox, the disk and the process's writes every {@link #INTERVAL} and forecasts from the oldest and
 * the newest sample of the last {@link #WINDOW} ({@link Forecast#of}): long enough that a burst does not swing it,
 * short enough that an outage that began shows within minutes. In memory: a restart starts a new window.
 *
 * <p>Threads: one daemon thread of its own, {@code disk-forecast}, started by {@link #start} and stopped by
 * {@link #close}. Thread-safe.
 */
public final class DiskForecast implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DiskForecast.class);
    public static final Duration INTERVAL = Duration.ofSeconds(10);
    public static final Duration WINDOW = Duration.ofMinutes(15);
    static final int MAX_SAMPLES = (int) (WINDOW.toMillis() / INTERVAL.toMillis()) + 1;

    /** Where the counters come from: commands stored, final receipts, open commands, rows kept. */
    public record Sources(LongSupplier stored, LongSupplier finals, LongSupplier open, LongSupplier rows) {}

    private final ForecastSettings settings;
    private final Sources sources;
    private final Clock clock;
    private final ArrayDeque<Forecast.Sample> samples = new ArrayDeque<>(); // guarded by this
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "disk-forecast");
        t.setDaemon(true);
        return t;
    });

    public DiskForecast(ForecastSettings settings, Sources sources, Clock clock) {
        this.settings = settings;
        this.sources = sources;
        this.clock = clock;
    }

    /** Takes the first sample now and one every {@link #INTERVAL}. */
    public void start() {
        timer.scheduleAtFixedRate(
                GuardedRuns.of(this::sample, LOG, "disk forecast sample failed (the forecast skips one)"),
                0,
                INTERVAL.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** One sample now (the sampler calls it every {@link #INTERVAL}; tests call it by hand). */
    public void sample() {
        Forecast.Sample s = new Forecast.Sample(
                clock.instant(),
                sources.stored().getAsLong(),
                sources.finals().getAsLong(),
                sources.open().getAsLong(),
                sources.rows().getAsLong(),
                outboxBytes(),
                freeBytes(),
                ProcessIo.writeBytes().orElse(-1));
        synchronized (this) {
            samples.addLast(s);
            while (samples.size() > MAX_SAMPLES) {
                samples.removeFirst();
            }
        }
    }

    /** The forecast from the window's samples; null before the first. */
    public synchronized @Nullable Forecast forecast() {
        Forecast.Sample last = samples.peekLast();
        Forecast.Sample first = samples.peekFirst();
        return last == null || first == null ? null : Forecast.of(first, last, settings);
    }

    private long outboxBytes() {
        long total = 0;
        for (String name : List.of("outbox.db", "outbox.db-wal", "outbox.db-shm")) {
            Path f = settings.dataDir().resolve(name);
            try {
                total += Files.exists(f) ? Files.size(f) : 0;
            } catch (IOException e) {
                // removed between the two calls: counts as 0
            }
        }
        return total;
    }

    private long freeBytes() {
        try {
            return Files.getFileStore(settings.dataDir()).getUsableSpace();
        } catch (IOException e) {
            return 0;
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
