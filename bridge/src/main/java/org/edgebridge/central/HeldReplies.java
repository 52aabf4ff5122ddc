package org.edgebridge.central;

import java.util.concurrent.TimeUnit;

/**
 * Replies a {@code hold_reply} fault holds back (a central that applied a request and is slow to say so): each waits
 * its {@code holdMs} or until {@link #releaseAll()}, whichever comes first. Thread-safe.
 */
final class HeldReplies {
    private long holding; // guarded by this
    private long releases; // guarded by this

    /** Holds the calling (request) thread up to {@code holdMs}, or until released. */
    synchronized void hold(long holdMs) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(holdMs);
        holding++;
        long releasesAtStart = releases;
        try {
            long left;
            while (releases == releasesAtStart && (left = deadline - System.nanoTime()) > 0) {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            holding--;
        }
    }

    /** Ends every reply held now. */
    synchronized void releaseAll() {
        releases++;
        notifyAll();
    }

    /** Replies held right now. */
    synchronized long holding() {
        return holding;
    }
}
