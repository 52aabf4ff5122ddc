package org.edgebridge.config;

import java.math.BigDecimal;
import java.util.Optional;

/**
 * The keys of what a site pays for: the disk the bridge writes to ({@code storage.*}) and the data to central
 * ({@code ingest.dataBudget}). Part of {@link ConfigKeys#ALL}.
 */
public final class StorageKeys {
    private static final BigDecimal TERABYTE = BigDecimal.TEN.pow(12);

    public static final ConfigKey<Optional<Long>> STORAGE_RATED_TBW = new ConfigKey<>(
            "storage.ratedTbw",
            null,
            "terabytes, 0.001-100000",
            "the data dir's disk's rated endurance in terabytes written (TBW); unset: no life forecast",
            StorageKeys::terabytes,
            Optional.empty(),
            "docs/install.md#the-disk-and-flash-forecast");

    public static final ConfigKey<Optional<Long>> INGEST_DATA_BUDGET = new ConfigKey<>(
            "ingest.dataBudget",
            null,
            "1MiB or more",
            "bytes to and from central a calendar month (UTC) for a metered link; unset: none",
            t -> Optional.of(ValueParsers.size(t, 1024 * 1024, ValueParsers.NO_LIMIT)),
            Optional.empty(),
            "docs/install.md#the-data-budget");

    private StorageKeys() {}

    static Optional<Long> terabytes(String text) {
        BigDecimal tb;
        try {
            tb = new BigDecimal(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("must be a number of terabytes such as 150 or 0.6");
        }
        if (tb.compareTo(new BigDecimal("0.001")) < 0 || tb.compareTo(new BigDecimal(100_000)) > 0) {
            throw new IllegalArgumentException("must be from 0.001 to 100000 terabytes");
        }
        return Optional.of(tb.multiply(TERABYTE).longValue());
    }
}
