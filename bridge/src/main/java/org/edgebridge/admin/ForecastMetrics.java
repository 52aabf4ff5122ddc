package org.edgebridge.admin;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.Function;
import org.edgebridge.forecast.DiskForecast;
import org.edgebridge.forecast.Forecast;
import org.jspecify.annotations.Nullable;

/**
 * The disk and flash forecast in {@code /metrics} ({@link DiskForecast}); a figure that cannot be had is NaN (no
 * sample yet, nothing coming in, no {@code storage.ratedTbw}), which no alert rule's comparison matches.
 */
final class ForecastMetrics {
    private ForecastMetrics() {}

    static void register(MeterRegistry registry, DiskForecast forecast) {
        gauge(
                registry,
                forecast,
                "edgebridge.outbox.disk.bytes",
                "bytes",
                "the outbox's files: outbox.db, its WAL and shared memory",
                f -> (double) f.outboxBytes());
        gauge(
                registry,
                forecast,
                "edgebridge.disk.free.bytes",
                "bytes",
                "free space on the data dir's file system",
                f -> (double) f.freeBytes());
        gauge(
                registry,
                forecast,
                "edgebridge.outbox.room.bytes",
                "bytes",
                "free space above outbox.minFreeDisk: what the "
                        + "outbox may still grow by before new commands are refused",
                f -> (double) f.roomBytes());
        gauge(
                registry,
                forecast,
                "edgebridge.forecast.intake.per.second",
                null,
                "commands stored per second over the forecast's window (15 min)",
                Forecast::intakePerSecond);
        gauge(
                registry,
                forecast,
                "edgebridge.forecast.egress.per.second",
                null,
                "final receipts from central per second over the forecast's window (15 min)",
                Forecast::egressPerSecond);
        gauge(
                registry,
                forecast,
                "edgebridge.forecast.full.in",
                "seconds",
                "time until the room above outbox.minFreeDisk "
                        + "is gone at the current intake; NaN while nothing comes in",
                Forecast::secondsUntilFull);
        gauge(
                registry,
                forecast,
                "edgebridge.forecast.drain.in",
                "seconds",
                "time until the backlog is sent at the "
                        + "current egress over intake; 0 without a backlog, NaN while it does not shrink",
                Forecast::secondsToDrain);
        gauge(
                registry,
                forecast,
                "edgebridge.forecast.write.bytes.per.command",
                null,
                "bytes the process wrote to "
                        + "storage per command stored, over the window (/proc/self/io write_bytes)",
                Forecast::writeBytesPerCommand);
        gauge(
                registry,
                forecast,
                "edgebridge.forecast.write.bytes.per.day",
                null,
                "bytes the process writes to storage per day at the window's rate",
                Forecast::writeBytesPerDay);
        gauge(
                registry,
                forecast,
                "edgebridge.storage.life.left",
                "seconds",
                "how long the disk's rated endurance "
                        + "(storage.ratedTbw) lasts at the current writes per day; NaN when unset",
                f -> f.lifeDaysLeft() == null ? null : f.lifeDaysLeft() * 86_400);
        FunctionCounter.builder(
                        "edgebridge.process.disk.write",
                        forecast,
                        d -> value(
                                d,
                                f -> f.writeBytesTotal() == null
                                        ? null
                                        : f.writeBytesTotal().doubleValue()))
                .baseUnit("bytes")
                .description(
                        "bytes the process wrote to storage since it started (/proc/self/io write_bytes), as of the "
                                + "forecast's last sample")
                .register(registry);
    }

    private static void gauge(
            MeterRegistry registry,
            DiskForecast forecast,
            String name,
            @Nullable String unit,
            String description,
            Function<Forecast, @Nullable Double> figure) {
        Gauge.builder(name, forecast, d -> value(d, figure))
                .baseUnit(unit)
                .description(description)
                .register(registry);
    }

    private static double value(DiskForecast d, Function<Forecast, @Nullable Double> figure) {
        Forecast f = d.forecast();
        Double v = f == null ? null : figure.apply(f);
        return v == null ? Double.NaN : v;
    }
}
