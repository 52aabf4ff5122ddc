package org.edgebridge.outbox;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.edgebridge.lifecycle.Component;
import org.edgebridge.lifecycle.Once;
import org.edgebridge.worker.FatalErrors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies the outbox's write-ahead log back into the database file on a thread of its own, so that the writers do not.
 *
 * <p>Left to itself, SQLite checkpoints inside the commit that takes the log past 1,000 pages: that commit copies
 * ~4 MB and syncs the database file inside the outbox writer's transaction, and the intake and the
 * forwarder wait behind it (several times a second at 1,000 commands/s: docs/BENCHMARKS.md). The outbox writer's
 * connection checkpoints itself only past {@link
 * OutboxDatabase#WRITER_CHECKPOINT_PAGES}, a fallback for an outbox without this thread (tests, embedding) or one
 * that falls behind; this thread runs a PASSIVE checkpoint every {@link #EVERY}, which neither waits for nor blocks
 * the writers, and copies what is committed by then.
 *
 * <p>SQLite reuses the log file from its start once it is all copied, but never shrinks it: after a burst (or a
 * fallback checkpoint at {@link OutboxDatabase#WRITER_CHECKPOINT_PAGES}) the file keeps its largest size, tens of MB
 * the disk floor ({@code outbox.minFreeDisk}) would count as used for good. So once the log is idle (nothing written
 * between two turns), all copied, and its file is larger than {@link #TRUNCATE_ABOVE_BYTES}, this thread cuts it to
 * zero with a TRUNCATE checkpoint that gives up at once rather than wait for a writer or reader.
 *
 * <p>Thread: "outbox-checkpoint", a single-thread scheduler owned by this class. A failed checkpoint is logged (once
 * per kind in a row) and tried again at the next turn: the log only grows until the next one, and the writers' fallback
 * bounds it.
 */
public final class WalCheckpointer implements Component, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WalCheckpointer.class);
    static final Duration EVERY = Duration.ofMillis(200);
    /** An idle, copied log file larger than this is cut to zero (SQLite's default checkpoint size, 1,000 pages). */
    static final long TRUNCATE_ABOVE_BYTES = 4L << 20;

    private final Outbox outbox;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "outbox-checkpoint");
        t.setDaemon(true);
        return t;
    });
    private final Once once = new Once();
    private final AtomicLong checkpoints = new AtomicLong();
    private final AtomicLong logTruncations = new AtomicLong();
    private volatile CheckpointConnection.Checkpoint last = new CheckpointConnection.Checkpoint(0, 0);
    private @Nullable String lastFailure; // outbox-checkpoint thread only

    public WalCheckpointer(Outbox outbox) {
        this.outbox = outbox;
    }

    @Override
    public void start() {
        if (once.start()) {
            thread.scheduleWithFixedDelay(
                    FatalErrors.scheduled(this::checkpoint), EVERY.toMillis(), EVERY.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void checkpoint() {
        try {
            CheckpointConnection.Checkpoint previous = last;
            CheckpointConnection.Checkpoint now = outbox.checkpointPassive();
            last = now;
            checkpoints.incrementAndGet();
            boolean idle = now.logPages() == previous.logPages() && now.pagesCopied() == now.logPages();
            if (idle
                    && now.logPages() > 0
                    && outbox.logFileBytes() > TRUNCATE_ABOVE_BYTES
                    && outbox.truncateLogIfFree()) {
                logTruncations.incrementAndGet();
                last = new CheckpointConnection.Checkpoint(0, 0);
            }
            lastFailure = null;
        } catch (RuntimeException e) {
            if (!String.valueOf(e.getMessage()).equals(lastFailure)) {
                LOG.warn(
                        "outbox checkpoint failed ({}); trying again every {} ms, the writers checkpoint past {} pages",
                        e.getMessage(),
                        EVERY.toMillis(),
                        OutboxDatabase.WRITER_CHECKPOINT_PAGES);
            }
            lastFailure = String.valueOf(e.getMessage());
        }
    }

    /**
     * Checkpoints run since start; after the last one, the pages in the log and how many of them are in the database
     * file (all of them, unless a writer was appending meanwhile); how often an idle log file was cut to zero.
     */
    public record Status(long checkpoints, long logPages, long pagesInFile, long logTruncations) {}

    public Status status() {
        CheckpointConnection.Checkpoint c = last;
        return new Status(checkpoints.get(), c.logPages(), c.pagesCopied(), logTruncations.get());
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(10));
    }

    /** Ends after the checkpoint under way, waiting at most {@code timeout}. */
    @Override
    public void close(Duration timeout) {
        once.close();
        thread.shutdown();
        try {
            thread.awaitTermination(Math.max(1, timeout.toMillis()), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
