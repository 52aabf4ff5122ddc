package org.edgebridge.outbox;

import java.util.ArrayList;
import java.util.List;

/**
 * Rows whose final receipt was handed to the broker and not yet marked so: {@link OutboxWriter} marks them in its
 * next transaction, not in one of their own. A crash before it loses only the marks: those receipts are
 * published again, flagged replayed. Thread-safe.
 */
final class PublishedMarks {
    private final List<Long> unmarked = new ArrayList<>(); // guarded by this

    synchronized void add(List<Long> ids) {
        unmarked.addAll(ids);
    }

    synchronized boolean waiting() {
        return !unmarked.isEmpty();
    }

    /** The marks that wait, for the transaction under way; none are left waiting. */
    synchronized List<Long> take() {
        if (unmarked.isEmpty()) {
            return List.of();
        }
        List<Long> taken = List.copyOf(unmarked);
        unmarked.clear();
        return taken;
    }

    /** Marks {@link #take taken} by a transaction that failed: they wait for the next one, first. */
    synchronized void giveBack(List<Long> taken) {
        unmarked.addAll(0, taken);
    }
}
