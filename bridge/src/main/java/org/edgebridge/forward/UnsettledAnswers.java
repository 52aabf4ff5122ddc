package org.edgebridge.forward;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.edgebridge.outbox.ForwarderOutbox;
import org.edgebridge.outbox.SentRequest;
import org.edgebridge.outbox.Settlement;

/**
 * Answers of central that the outbox could not commit (a full or failing disk). Their rows stay in flight, so
 * nothing else sends them; the forwarder commits them, oldest first, before it claims anything new. If the
 * process dies first, start-up releases the claims and central answers the events as duplicates.
 *
 * <p>Thread-safe: any forwarder worker may keep or commit; {@link #events()} reads without the lock, so that the
 * status page does not wait on a stuck disk.
 */
final class UnsettledAnswers {
    /** The settlements of one request, as central answered them. */
    record Answer(SentRequest request, List<Settlement> settlements) {}

    /** Commits one answer: throws if the outbox still cannot. */
    interface Commit {
        ForwarderOutbox.SettleResult commit(Answer answer);
    }

    private final ArrayDeque<Answer> answers = new ArrayDeque<>();
    private final AtomicInteger events = new AtomicInteger();

    synchronized void keep(SentRequest request, List<Settlement> settlements) {
        answers.add(new Answer(request, settlements));
        events.addAndGet(settlements.size());
    }

    /**
     * Commits the kept answers in order, handing each result to {@code then}; stops at the first that fails.
     *
     * @return true when none is left
     */
    synchronized boolean commitAll(Commit commit, Consumer<ForwarderOutbox.SettleResult> then) {
        while (!answers.isEmpty()) {
            Answer next = answers.peek();
            ForwarderOutbox.SettleResult result;
            try {
                result = commit.commit(next);
            } catch (RuntimeException e) {
                return false;
            }
            answers.poll();
            events.addAndGet(-next.settlements().size());
            then.accept(result);
        }
        return true;
    }

    /** Events whose answer is kept. */
    int events() {
        return events.get();
    }
}
