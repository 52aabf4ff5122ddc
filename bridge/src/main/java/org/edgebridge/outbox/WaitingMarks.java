package org.edgebridge.outbox;

import java.util.ArrayList;
import java.util.List;

/**
 * Marks that wait for the {@link OutboxWriter}'s next transaction, not for one of their own: the rows whose
 * final receipt was handed to the broker (a crash before the commit loses only the marks: those receipts are
 * published again, flagged replayed), and the devices' PUBACKs of their final receipts (a lost one only leaves a
 * command's timeline without it). At most {@code max} wait; a mark past that is not kept, and counted. Thread-safe.
 *
 * @param <T> what one mark holds
 */
final class WaitingMarks<T> {
    private final int max;
    private final List<T> unmarked = new ArrayList<>(); // guarded by this
    private long dropped; // guarded by this

    /** @param max most marks waiting at once */
    WaitingMarks(int max) {
        this.max = max;
    }

    synchronized void add(List<T> marks) {
        int room = Math.max(0, max - unmarked.size());
        unmarked.addAll(marks.size() <= room ? marks : marks.subList(0, room));
        dropped += Math.max(0, marks.size() - room);
    }

    synchronized boolean waiting() {
        return !unmarked.isEmpty();
    }

    /** The marks that wait, for the transaction under way; none are left waiting. */
    synchronized List<T> take() {
        if (unmarked.isEmpty()) {
            return List.of();
        }
        List<T> taken = List.copyOf(unmarked);
        unmarked.clear();
        return taken;
    }

    /** Marks {@link #take taken} by a transaction that failed: they wait for the next one, first (within the bound). */
    synchronized void giveBack(List<T> taken) {
        List<T> newer = List.copyOf(unmarked);
        unmarked.clear();
        add(taken);
        add(newer);
    }

    /** Marks not kept since start: more than {@code max} waited. */
    synchronized long dropped() {
        return dropped;
    }
}
