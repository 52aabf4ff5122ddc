package org.edgebridge.intake;

import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the intake's outbox writes fail now (e.g. a full disk: SQLITE_FULL): what keeps the bridge "not ready" and
 * the status page's alarm. The first failure of a run is logged, the others counted until a write succeeds. Failures
 * are recorded by the intake's writer thread; {@link #current()} is read by any.
 */
final class WriteFailures {
    private static final Logger LOG = LoggerFactory.getLogger(WriteFailures.class);
    /** How long a failed outbox write keeps the bridge "not ready" when no later write says otherwise. */
    static final long MEMORY_NANOS = TimeUnit.SECONDS.toNanos(30);

    /** The last failed outbox write, while no write that stored a command has succeeded since. */
    private record Failure(String message, long atNanos) {}

    private volatile @Nullable Failure last;
    private int inARow; // intake-writer thread only

    /** A write of {@code commands} commands failed; they are answered retry_later / outbox_unavailable. */
    void failed(int commands, RuntimeException e) {
        if (inARow++ == 0) {
            LOG.warn(
                    "outbox write failed for {} commands, answered retry_later / outbox_unavailable (further failures "
                            + "are counted, not logged, until a write succeeds): {}",
                    commands,
                    e.toString());
        }
        last = new Failure(String.valueOf(e.getMessage()), System.nanoTime());
    }

    /**
     * A write that stored a new command succeeded: only such a commit proves the disk takes writes (SQLite commits a
     * transaction that wrote nothing, a batch of resends, even on a full disk).
     */
    void storedAgain() {
        if (inARow > 0) {
            LOG.info("outbox writes succeed again after {} failed batches", inARow);
            inARow = 0;
        }
        last = null;
    }

    /**
     * The error of the last outbox write while writes fail: set by a failed write, cleared by the next write that
     * stores a new command, and forgotten after {@link #MEMORY_NANOS} without a failed write (no new command came to
     * try again).
     */
    Optional<String> current() {
        Failure failure = last;
        if (failure == null || System.nanoTime() - failure.atNanos() > MEMORY_NANOS) {
            return Optional.empty();
        }
        return Optional.of(failure.message());
    }
}
