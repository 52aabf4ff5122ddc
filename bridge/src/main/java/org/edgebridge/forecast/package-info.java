/**
 * The disk and flash forecast ({@link org.edgebridge.forecast.DiskForecast}): the outbox's size and the room left on
 * its disk, how long until that room is gone at the current intake and how long until the backlog is sent at the
 * current egress, the bytes the process writes to disk per command (its own {@code /proc/self/io}, the SQLite WAL and
 * checkpoints included) and per day, and with {@code storage.ratedTbw} the days of the disk's rated endurance that this
 * rate leaves.
 *
 * <p>Threads: one daemon sampler of its own, {@code disk-forecast}, started and stopped by its owner (the admin
 * side). Bounded: a ring of {@link org.edgebridge.forecast.DiskForecast#MAX_SAMPLES} samples in memory.
 */
@NullMarked
package org.edgebridge.forecast;

import org.jspecify.annotations.NullMarked;
