package org.edgebridge.forecast;

import java.nio.file.Path;
import java.util.Optional;

/**
 * What the forecast needs of the configuration.
 *
 * @param dataDir where the outbox lives ({@code data.dir}); its file system is the one whose room is forecast
 * @param minFreeDiskBytes {@code outbox.minFreeDisk}: below it the intake refuses new commands, so the room ends there
 * @param ratedTbwBytes {@code storage.ratedTbw} in bytes (terabytes written the disk is rated for), if set
 */
public record ForecastSettings(Path dataDir, long minFreeDiskBytes, Optional<Long> ratedTbwBytes) {}
