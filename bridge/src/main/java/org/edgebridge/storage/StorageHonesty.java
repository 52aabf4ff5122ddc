package org.edgebridge.storage;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import org.edgebridge.code.AlarmCode;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the data dir's fsync latency at start ({@link FsyncProbe}) says about it (docs/install.md, "Storage that keeps
 * what it acknowledges"). Two rules, each a warning that leaves the bridge ready:
 * <ul>
 *   <li><b>{@code storage_fsync_implausible}</b>: the median sync took less than {@value #PLAUSIBLE_MICROS} µs. Edge
 * boxes store on       eMMC, SD cards, SATA or consumer NVMe SSDs and hard disks, which need 0.2-20 ms to put a write
 * on stable       media; only a drive with power-loss protection (a capacitor-backed cache: enterprise SSDs) or a write
 * cache       that acknowledges before the data is safe (a RAM disk, tmpfs, a VM disk with an unsafe cache mode, a
 * drive or       controller whose volatile write cache ignores flushes) answers in tens of microseconds. The second
 * kind loses       stored commands at a power cut.</li>
 *   <li><b>{@code storage_fsync_slow}</b>: the outbox commits up to {@code intake.maxBatch} commands in one
 * transaction, and       a command costs two commits (stored, then settled); at the median latency the disk cannot keep
 * up with       {@code storage.expectedIntakeRate} commands per second ({@code 2 x latency x rate > maxBatch}).</li>
 * </ul>
 * Exported on {@code /metrics} ({@code edgebridge_storage_fsync_median_seconds}, {@code …_max_seconds}) and in
 * {@code /api/status} ({@code storage}).
 */
public record StorageHonesty(
        FsyncProbe.@Nullable FsyncLatency latency, @Nullable String probeError, int expectedIntakeRate, int maxBatch) {
    /** Below this median, a sync is faster than the storage of an edge box can make a write durable. */
    public static final long PLAUSIBLE_MICROS = 100;

    private static final Logger LOG = LoggerFactory.getLogger(StorageHonesty.class);

    /**
     * Probes {@code dataDir} ({@link FsyncProbe}) and logs the figure and what it says. A probe that fails is logged
     * and leaves no figure (the start goes on: the outbox then says what is wrong with the data dir).
     */
    public static StorageHonesty measure(Path dataDir, int expectedIntakeRate, int maxBatch) {
        StorageHonesty storage;
        try {
            storage = new StorageHonesty(FsyncProbe.measure(dataDir), null, expectedIntakeRate, maxBatch);
        } catch (IOException e) {
            LOG.warn("data.dir={}: could not measure its fsync latency: {}", dataDir.toAbsolutePath(), e.toString());
            return new StorageHonesty(null, e.toString(), expectedIntakeRate, maxBatch);
        }
        FsyncProbe.@Nullable FsyncLatency l = storage.latency();
        if (l != null) {
            LOG.info(
                    "data.dir fsync latency at start: median {} µs, max {} µs ({} samples)",
                    l.medianMicros(),
                    l.maxMicros(),
                    l.samples());
        }
        storage.finding().ifPresent(f -> LOG.warn("{}: {}", f.code(), f.message()));
        return storage;
    }

    /** An alarm: its code and the sentence for the admin. */
    public record Finding(String code, String message) {}

    /** Capacity of the outbox at the measured latency, in commands per second ({@code maxBatch / (2 x latency)}). */
    public Optional<Long> capacityPerSecond() {
        return Optional.ofNullable(latency).map(l ->
                (long) (maxBatch * 1_000_000.0 / (2.0 * Math.max(1, l.medianMicros()))));
    }

    /** The alarm the figure raises, if any. */
    public Optional<Finding> finding() {
        if (latency == null) {
            return Optional.empty();
        }
        long median = latency.medianMicros();
        if (median < PLAUSIBLE_MICROS) {
            return Optional.of(new Finding(
                    AlarmCode.STORAGE_FSYNC_IMPLAUSIBLE.wire(),
                    "the data dir made a write durable in " + median + " µs (median of "
                            + latency.samples()
                            + " fsyncs at start): faster than edge-box storage can without power-loss "
                            + "protection. If the disk has none, a write cache acknowledges what a power cut loses "
                            + "(tmpfs, a VM disk with cache=unsafe, a volatile drive cache): put data.dir on storage "
                            + "that syncs (docs/install.md)"));
        }
        long capacity = capacityPerSecond().orElse(Long.MAX_VALUE);
        if (capacity < expectedIntakeRate) {
            return Optional.of(new Finding(
                    AlarmCode.STORAGE_FSYNC_SLOW.wire(),
                    "the data dir needs " + median + " µs per fsync (median of "
                            + latency.samples() + " at start): the outbox can store about " + capacity
                            + " commands/s, below "
                            + "storage.expectedIntakeRate=" + expectedIntakeRate
                            + "; devices will get retry_later at that rate. "
                            + "Use faster storage for data.dir (docs/install.md)"));
        }
        return Optional.empty();
    }

    /** Registers the figures on {@code meters} (nothing when the probe failed). */
    public void register(MeterRegistry meters) {
        if (latency == null) {
            return;
        }
        FsyncProbe.FsyncLatency l = latency;
        Gauge.builder("edgebridge.storage.fsync.median", () -> l.medianMicros() / 1e6)
                .baseUnit("seconds")
                .description("median time the data dir took to fsync a 4 KiB write, measured at start")
                .register(meters);
        Gauge.builder("edgebridge.storage.fsync.max", () -> l.maxMicros() / 1e6)
                .baseUnit("seconds")
                .description("longest of the fsyncs of the data dir measured at start")
                .register(meters);
    }
}
