package org.edgebridge.forecast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The forecast's arithmetic from two samples, and what is null when it cannot be had. */
class ForecastTest {
    private static final Instant T0 = Instant.parse("2026-12-06T01:00:00Z");
    private static final long MIB = 1024 * 1024;
    private static final ForecastSettings SETTINGS =
            new ForecastSettings(Path.of("data"), 256 * MIB, Optional.of(150_000_000_000_000L)); // 150 TBW

    private static Forecast.Sample sample(
            long seconds,
            long stored,
            long finals,
            long open,
            long rows,
            long outboxBytes,
            long freeBytes,
            long writeBytes) {
        return new Forecast.Sample(
                T0.plusSeconds(seconds), stored, finals, open, rows, outboxBytes, freeBytes, writeBytes);
    }

    @Test
    void central_down_fills_the_room_at_the_intake_and_never_drains() {
        // 10 commands/s for 15 min, none final; 1 KiB on disk per row; 1 GiB free of which 256 MiB are kept
        Forecast f = Forecast.of(
                sample(0, 1000, 500, 0, 1000, 1000 * 1024, 1024 * MIB, 1_000_000),
                sample(900, 10_000, 500, 9000, 10_000, 10_000 * 1024, 1024 * MIB, 1_000_000 + 9000 * 4096),
                SETTINGS);
        assertThat(f.windowSeconds()).isEqualTo(900);
        assertThat(f.intakePerSecond()).isEqualTo(10.0);
        assertThat(f.egressPerSecond()).isZero();
        assertThat(f.roomBytes()).isEqualTo(768 * MIB);
        assertThat(f.bytesPerRow()).isEqualTo(1024.0);
        assertThat(f.secondsUntilFull()).isCloseTo(768 * MIB / (10.0 * 1024), within(0.001)); // 78,643 s: 21.8 h
        assertThat(f.secondsToDrain()).as("the backlog does not shrink").isNull();
        assertThat(f.writeBytesPerCommand()).isEqualTo(4096.0);
        assertThat(f.writeBytesPerDay()).isCloseTo(9000 * 4096 / 900.0 * 86_400, within(0.001));
        assertThat(f.lifeDaysLeft()).isCloseTo(150e12 / (40_960.0 * 86_400), within(0.01)); // 42,386 days
        assertThat(f.writeBytesTotal()).isEqualTo(1_000_000 + 9000 * 4096);
    }

    @Test
    void central_back_drains_the_backlog_at_egress_over_intake() {
        Forecast f = Forecast.of(
                sample(0, 0, 0, 9000, 9000, 9000 * 1024, 1024 * MIB, 0),
                sample(100, 200, 1200, 8000, 9200, 9200 * 1024, 1024 * MIB, 0),
                SETTINGS);
        assertThat(f.intakePerSecond()).isEqualTo(2.0);
        assertThat(f.egressPerSecond()).isEqualTo(12.0);
        assertThat(f.secondsToDrain()).isEqualTo(800.0); // 8000 open at 10/s net
    }

    @Test
    void with_one_sample_no_rates_without_rows_no_size_without_intake_no_fill_without_io_no_writes() {
        Forecast.Sample only = sample(0, 5, 5, 0, 0, 0, 100 * MIB, -1);
        Forecast f = Forecast.of(only, only, SETTINGS);
        assertThat(f.intakePerSecond()).isNull();
        assertThat(f.bytesPerRow()).isNull();
        assertThat(f.secondsUntilFull()).isNull();
        assertThat(f.secondsToDrain()).as("no backlog").isZero();
        assertThat(f.roomBytes()).as("below outbox.minFreeDisk: no room").isZero();
        assertThat(f.writeBytesTotal()).isNull();
        assertThat(f.lifeDaysLeft()).isNull();
        Forecast idle = Forecast.of(
                sample(0, 5, 5, 0, 5, 5000, 1024 * MIB, 10),
                sample(60, 5, 5, 0, 5, 5000, 1024 * MIB, 10),
                new ForecastSettings(Path.of("data"), 0, Optional.empty()));
        assertThat(idle.secondsUntilFull()).as("nothing comes in").isNull();
        assertThat(idle.writeBytesPerCommand()).as("no command stored").isNull();
        assertThat(idle.writeBytesPerDay()).isZero();
        assertThat(idle.lifeDaysLeft()).as("no storage.ratedTbw").isNull();
    }

    @Test
    void proc_self_io_write_bytes_is_read_and_anything_else_gives_none() {
        assertThat(ProcessIo.writeBytes(
                        "rchar: 1\nwchar: 2\nread_bytes: 3\nwrite_bytes: 4096\ncancelled_write_bytes: 0\n"))
                .hasValue(4096);
        assertThat(ProcessIo.writeBytes("rchar: 1\n")).isEmpty();
        assertThat(ProcessIo.writeBytes("write_bytes: lots\n")).isEmpty();
    }
}
