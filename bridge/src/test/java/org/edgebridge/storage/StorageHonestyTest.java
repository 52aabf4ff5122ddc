package org.edgebridge.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import org.edgebridge.code.AlarmCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rules of docs/install.md, "Storage that keeps what it acknowledges", at and around their edges. */
class StorageHonestyTest {
    private static StorageHonesty at(long medianMicros, int rate, int maxBatch) {
        return new StorageHonesty(
                new FsyncProbe.FsyncLatency(8, medianMicros, medianMicros, medianMicros * 2), null, rate, maxBatch);
    }

    @Test
    void a_sync_in_tens_of_microseconds_is_implausible() {
        assertThat(at(30, 1000, 256).finding()).hasValueSatisfying(f -> {
            assertThat(f.code()).isEqualTo(AlarmCode.STORAGE_FSYNC_IMPLAUSIBLE.wire());
            assertThat(f.message()).contains("30 µs", "power-loss protection", "docs/install.md");
        });
        assertThat(at(StorageHonesty.PLAUSIBLE_MICROS - 1, 1000, 256).finding())
                .map(StorageHonesty.Finding::code)
                .contains(AlarmCode.STORAGE_FSYNC_IMPLAUSIBLE.wire());
    }

    @Test
    void a_sync_that_a_disk_can_really_do_raises_nothing() {
        assertThat(at(StorageHonesty.PLAUSIBLE_MICROS, 1000, 256).finding()).isEmpty();
        assertThat(at(2_000, 1000, 256).finding()).isEmpty(); // an SSD or eMMC: 256 / 4 ms = 64,000 commands/s
    }

    @Test
    void a_sync_too_slow_for_the_expected_rate_is_an_alarm_naming_the_capacity_and_the_key() {
        // 2 commits per command, 256 commands per commit: at 200 ms a sync, 640 commands/s
        StorageHonesty slow = at(200_000, 1000, 256);
        assertThat(slow.capacityPerSecond()).contains(640L);
        assertThat(slow.finding()).hasValueSatisfying(f -> {
            assertThat(f.code()).isEqualTo(AlarmCode.STORAGE_FSYNC_SLOW.wire());
            assertThat(f.message()).contains("640 commands/s", "storage.expectedIntakeRate=1000");
        });
        assertThat(at(200_000, 640, 256).finding()).isEmpty();
    }

    @Test
    void no_figure_no_alarm_and_no_metric() {
        StorageHonesty none = new StorageHonesty(null, "java.io.IOException: read-only file system", 1000, 256);
        assertThat(none.finding()).isEmpty();
        assertThat(none.capacityPerSecond()).isEmpty();
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        none.register(meters);
        assertThat(meters.scrape()).doesNotContain("edgebridge_storage_fsync");
    }

    @Test
    void the_probe_measures_real_syncs_leaves_no_file_and_exports_seconds(@TempDir Path dir) throws Exception {
        FsyncProbe.FsyncLatency l = FsyncProbe.measure(dir);
        assertThat(l.samples()).isEqualTo(8);
        assertThat(l.minMicros()).isLessThanOrEqualTo(l.medianMicros());
        assertThat(l.medianMicros()).isLessThanOrEqualTo(l.maxMicros());
        assertThat(dir.resolve(FsyncProbe.FILE)).doesNotExist();
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new StorageHonesty(l, null, 1000, 256).register(meters);
        assertThat(meters.scrape())
                .contains("edgebridge_storage_fsync_median_seconds", "edgebridge_storage_fsync_max_seconds");
    }

    @Test
    void a_probe_that_cannot_write_leaves_no_figure_and_says_why(@TempDir Path dir) {
        StorageHonesty s = StorageHonesty.measure(dir.resolve("missing"), 1000, 256);
        assertThat(s.latency()).isNull();
        assertThat(s.probeError()).contains("NoSuchFileException");
        assertThat(s.finding()).isEmpty();
    }
}
