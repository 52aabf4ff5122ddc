package org.edgebridge.intake;

import java.util.Objects;
import org.edgebridge.outbox.IntakeOutbox;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many new commands the outbox may take now: none while the disk is below {@code outbox.minFreeDisk} or the
 * outbox holds {@code outbox.maxPending} open commands. Logs once when either limit is reached and once when it is
 * left again. {@link #forNextBatch} runs on the intake writer; the rest may be called from any thread.
 */
final class OutboxRoom {
    private static final Logger LOG = LoggerFactory.getLogger(OutboxRoom.class);

    private final IntakeOutbox outbox;
    private final DiskSpace disk;
    private final IntakeSettings.Room settings;
    private volatile boolean full;
    private volatile boolean lowDisk;

    OutboxRoom(IntakeOutbox outbox, IntakeSettings.Room settings) {
        this.outbox = outbox;
        this.settings = settings;
        // an absolute path of a file always has a parent
        this.disk = new DiskSpace(
                Objects.requireNonNull(outbox.file().toAbsolutePath().getParent()), outbox::freeBytes);
    }

    /** The room for the batch about to be written (0 below the disk floor or at maxPending). */
    long forNextBatch() {
        boolean low = isLowOnDisk();
        if (low != lowDisk) {
            LOG.warn(
                    low
                            ? "free disk below outbox.minFreeDisk ({} bytes): new commands get retry_later / "
                                    + "outbox_full"
                            : "free disk above outbox.minFreeDisk ({} bytes) again: taking new commands",
                    settings.minFreeDiskBytes());
            lowDisk = low;
        }
        long room = low ? 0 : Math.max(0, settings.maxPending() - outbox.openCount());
        boolean nowFull = room == 0;
        if (nowFull != full && !low) {
            LOG.warn(
                    nowFull
                            ? "outbox holds outbox.maxPending={} open commands: new commands get retry_later / "
                                    + "outbox_full"
                            : "outbox below outbox.maxPending={} again: taking new commands",
                    settings.maxPending());
        }
        full = nowFull;
        return room;
    }

    /** Whether the last batch found the disk below its floor (what an {@code outbox_full} receipt says). */
    boolean lastBatchWasLowOnDisk() {
        return lowDisk;
    }

    /** True while new commands are refused because the outbox is at maxPending or the disk is below its floor. */
    boolean isFull() {
        return isLowOnDisk() || outbox.openCount() >= settings.maxPending();
    }

    boolean isLowOnDisk() {
        return disk.usableBytes() < settings.minFreeDiskBytes();
    }
}
