package org.edgebridge.forward;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.LongSupplier;
import org.edgebridge.outbox.ClaimedEvent;
import org.edgebridge.outbox.ForwarderOutbox;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Batches claimed in the transaction that settled the previous request ({@link ForwarderOutbox#settleAndClaim}),
 * waiting for the next step, which sends one instead of claiming. Why: a claim of its own was a second commit and a
 * second wait for the write lock per request, nearly half of a step at 1,000 commands/s (docs/BENCHMARKS.md). A batch
 * claimed ahead is sent by the next step that may send; a step that is held back (paused, backing off, breaker open)
 * puts it back to pending, as does {@link Forwarder#close}. A crash leaves it in flight, and the next start returns it
 * to pending like any claim. Thread-safe: any worker adds and takes.
 */
final class ClaimedAhead {
    private static final Logger LOG = LoggerFactory.getLogger(ClaimedAhead.class);

    /** One claim: its id (the history's batch id of the claim) and its events. */
    record Batch(String claimId, List<ClaimedEvent> events) {}

    private final ForwarderSettings settings;
    private final LongSupplier storedUpTo;
    private final CentralGuards guards;
    private final ConcurrentLinkedQueue<Batch> batches = new ConcurrentLinkedQueue<>();

    /** @param storedUpTo the highest outbox row whose {@code stored} receipt has been handed out */
    ClaimedAhead(ForwarderSettings settings, LongSupplier storedUpTo, CentralGuards guards) {
        this.settings = settings;
        this.storedUpTo = storedUpTo;
        this.guards = guards;
    }

    /**
     * The longest wait for the next request's permit with which a settle still claims ahead. A batch claimed ahead
     * leaves out what comes while its request waits for the permit; at the default 400 requests per second that is
     * a few milliseconds' worth, which goes in the next request. A longer wait is a site's low
     * {@code forwarder.requestsPerSecond}: then the step waits first and claims after, so that its batch takes what
     * came meanwhile ({@link CentralGuards#untilRequestPermit}).
     */
    static final Duration MAX_PERMIT_WAIT = Duration.ofMillis(10);

    /**
     * The claim for a settle to make, or none: when a batch waits already (one at most), or when the next
     * request's permit is further away than {@link #MAX_PERMIT_WAIT}.
     */
    Optional<ForwarderOutbox.NextClaim> nextClaim() {
        if (!batches.isEmpty() || guards.untilRequestPermit().compareTo(MAX_PERMIT_WAIT) > 0) {
            return Optional.empty();
        }
        return Optional.of(new ForwarderOutbox.NextClaim(
                settings.batching().limit(),
                IngestRequest.eventBudget(settings),
                IngestRequest::eventBytes,
                storedUpTo.getAsLong(),
                BatchIds.next()));
    }

    /** Keeps what a settle claimed for the next step (nothing when it found nothing). */
    void add(ForwarderOutbox.NextClaim claim, List<ClaimedEvent> events) {
        if (!events.isEmpty()) {
            batches.add(new Batch(claim.batchId(), events));
        }
    }

    /** The oldest batch claimed ahead, if any. */
    Optional<Batch> take() {
        return Optional.ofNullable(batches.poll());
    }

    /** Events claimed ahead, not sent yet. */
    int events() {
        return batches.stream().mapToInt(b -> b.events().size()).sum();
    }

    /** Puts every batch claimed ahead back to pending, as it was: nothing of it was sent. */
    void releaseAll(ForwarderOutbox outbox, String reason) {
        for (Batch b = batches.poll(); b != null; b = batches.poll()) {
            try {
                outbox.releaseUnsentClaim(b.claimId(), reason);
            } catch (RuntimeException e) {
                LOG.warn(
                        "could not put {} events claimed ahead back to pending ({}); they return to pending at the "
                                + "next start",
                        b.events().size(),
                        e.toString());
            }
        }
    }
}
