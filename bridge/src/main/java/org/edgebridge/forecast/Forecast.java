package org.edgebridge.forecast;

import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * The forecast from two samples of the window ({@link DiskForecast#WINDOW}): the oldest and the newest. A figure that
 * cannot be had is null: no rate before two samples, no time until full while nothing comes in, no life without
 * {@code storage.ratedTbw} or without the process's write figures.
 *
 * @param windowSeconds the span the rates are taken over (up to 15 minutes; less just after a start)
 * @param open commands not final yet
 * @param rows every command row kept (open and final within {@code outbox.retention})
 * @param outboxBytes the outbox's files: {@code outbox.db}, its WAL and shared memory
 * @param freeBytes free space on the data dir's file system, as an unprivileged process may use it
 * @param roomBytes what the outbox may still grow by: free space above {@code outbox.minFreeDisk}
 * @param intakePerSecond commands stored per second
 * @param egressPerSecond final receipts from central per second
 * @param bytesPerRow the outbox's bytes per kept row: what one more stored command costs on disk
 * @param secondsUntilFull the room divided by the intake times the bytes per row (every stored command keeps its row
 *     for {@code outbox.retention}, whether central has it or not); null while nothing comes in
 * @param secondsToDrain the backlog divided by what egress does over intake; 0 with no backlog; null while the
 *     egress does not outrun the intake (the backlog does not shrink)
 * @param writeBytesTotal what the process wrote to storage since it started ({@code /proc/self/io} write_bytes)
 * @param writeBytesPerCommand the process's writes over the window divided by the commands stored in it
 * @param writeBytesPerDay the process's writes over the window, as a day's
 * @param ratedTbwBytes {@code storage.ratedTbw} in bytes
 * @param lifeDaysLeft how many days the rated endurance lasts at {@code writeBytesPerDay} (wear done before not
 *     counted: see docs/install.md)
 */
public record Forecast(
        Instant at,
        double windowSeconds,
        long open,
        long rows,
        long outboxBytes,
        long freeBytes,
        long roomBytes,
        @Nullable Double intakePerSecond,
        @Nullable Double egressPerSecond,
        @Nullable Double bytesPerRow,
        @Nullable Double secondsUntilFull,
        @Nullable Double secondsToDrain,
        @Nullable Long writeBytesTotal,
        @Nullable Double writeBytesPerCommand,
        @Nullable Double writeBytesPerDay,
        @Nullable Long ratedTbwBytes,
        @Nullable Double lifeDaysLeft) {

    /**
     * One look at the counters and the disk.
     *
     * @param writeBytes {@code /proc/self/io} write_bytes, or -1 when there is none
     */
    record Sample(
            Instant at,
            long stored,
            long finals,
            long open,
            long rows,
            long outboxBytes,
            long freeBytes,
            long writeBytes) {}

    static Forecast of(Sample first, Sample last, ForecastSettings settings) {
        double seconds = Duration.between(first.at(), last.at()).toMillis() / 1000.0;
        long room = Math.max(0, last.freeBytes() - settings.minFreeDiskBytes());
        Double bytesPerRow = last.rows() > 0 ? (double) last.outboxBytes() / last.rows() : null;
        Double intake = null;
        Double egress = null;
        Double untilFull = null;
        Double toDrain = last.open() == 0 ? 0.0 : null;
        Double perCommand = null;
        Double perDay = null;
        if (seconds > 0) {
            intake = Math.max(0, last.stored() - first.stored()) / seconds;
            egress = Math.max(0, last.finals() - first.finals()) / seconds;
            if (intake > 0 && bytesPerRow != null) {
                untilFull = room / (intake * bytesPerRow);
            }
            if (last.open() > 0 && egress > intake) {
                toDrain = last.open() / (egress - intake);
            }
            if (first.writeBytes() >= 0 && last.writeBytes() >= first.writeBytes()) {
                long written = last.writeBytes() - first.writeBytes();
                perDay = written / seconds * 86_400;
                long commands = last.stored() - first.stored();
                perCommand = commands > 0 ? (double) written / commands : null;
            }
        }
        Long rated = settings.ratedTbwBytes().orElse(null);
        Double life = rated != null && perDay != null && perDay > 0 ? rated / perDay : null;
        return new Forecast(
                last.at(),
                seconds,
                last.open(),
                last.rows(),
                last.outboxBytes(),
                last.freeBytes(),
                room,
                intake,
                egress,
                bytesPerRow,
                untilFull,
                toDrain,
                last.writeBytes() >= 0 ? last.writeBytes() : null,
                perCommand,
                perDay,
                rated,
                life);
    }
}
