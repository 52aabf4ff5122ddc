package org.edgebridge.forward;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.edgebridge.hook.TestHook;
import org.edgebridge.outbox.ClaimedEvent;
import org.edgebridge.outbox.ForwarderOutbox;
import org.edgebridge.outbox.SentRequest;
import org.edgebridge.outbox.Settlement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits what central answered for claimed events, then publishes the finals ({@link FinalReceipts}). An answer
 * the outbox cannot commit is kept ({@link UnsettledAnswers}) and committed before anything new is sent.
 * Thread-safe: any forwarder worker settles.
 */
final class BatchSettler {
    private static final Logger LOG = LoggerFactory.getLogger(BatchSettler.class);

    private final ForwarderSettings settings;
    private final ForwarderOutbox outbox;
    private final FinalReceipts finalReceipts;
    private final Suspicions suspicions;
    private final UnsettledAnswers unsettled = new UnsettledAnswers();
    private final AtomicLong parked = new AtomicLong();

    BatchSettler(
            ForwarderSettings settings, ForwarderOutbox outbox, FinalReceipts finalReceipts, Suspicions suspicions) {
        this.settings = settings;
        this.outbox = outbox;
        this.finalReceipts = finalReceipts;
        this.suspicions = suspicions;
    }

    /** Commits central's answer to {@code request} (its id, HTTP status and duration go into the events' timelines). */
    void settle(SentRequest request, List<Settlement> settlements) {
        commit(
                request,
                settlements,
                () -> outbox.settle(request, settlements, settings.retries().maxAttempts()));
    }

    /**
     * Commits central's answer and, in the same transaction, claims the next request's batch into {@code ahead}
     * (when it holds none yet).
     */
    void settleAndClaimNext(SentRequest request, List<Settlement> settlements, ClaimedAhead ahead) {
        Optional<ForwarderOutbox.NextClaim> next = ahead.nextClaim();
        if (next.isEmpty()) {
            settle(request, settlements);
            return;
        }
        commit(
                        request,
                        settlements,
                        () -> outbox.settleAndClaim(
                                request, settlements, settings.retries().maxAttempts(), next.get()))
                .ifPresent(result -> ahead.add(next.get(), result.claimed()));
    }

    /** @return what the settle did, or empty when it could not be committed and the answer is kept */
    private Optional<ForwarderOutbox.SettleResult> commit(
            SentRequest request, List<Settlement> settlements, Supplier<ForwarderOutbox.SettleResult> settle) {
        ForwarderOutbox.SettleResult result;
        try {
            result = settle.get();
        } catch (RuntimeException e) {
            LOG.warn(
                    "could not commit central's answer for {} events ({}); kept, committed before anything new is "
                            + "sent",
                    settlements.size(),
                    e.getMessage());
            unsettled.keep(request, settlements);
            return Optional.empty();
        }
        applied(result);
        return Optional.of(result);
    }

    /** Puts events back to pending as they were: nothing is known of them (they may have reached central). */
    void release(SentRequest request, List<ClaimedEvent> events, String reason) {
        release(request, events, reason, true);
    }

    /**
     * {@link #release} of events that provably did not reach central with this claim ({@link Settlement.Release#sent}).
     */
    void releaseUnsent(SentRequest request, List<ClaimedEvent> events, String reason) {
        release(request, events, reason, false);
    }

    private void release(SentRequest request, List<ClaimedEvent> events, String reason, boolean sent) {
        if (events.isEmpty()) {
            return;
        }
        List<Settlement> releases = new ArrayList<>(events.size());
        for (ClaimedEvent e : events) {
            releases.add(new Settlement.Release(e.id(), reason, sent));
        }
        settle(request, releases);
    }

    /** Commits the answers kept by {@link #settle}. @return true when none is left */
    boolean settleKept() {
        return unsettled.commitAll(
                answer -> {
                    ForwarderOutbox.SettleResult result = outbox.settle(
                            answer.request(),
                            answer.settlements(),
                            settings.retries().maxAttempts());
                    LOG.info(
                            "committed a kept answer of central for {} events",
                            answer.settlements().size());
                    return result;
                },
                this::applied);
    }

    private void applied(ForwarderOutbox.SettleResult result) {
        if (result.parked() > 0) {
            parked.addAndGet(result.parked());
            LOG.warn(
                    "{} commands parked (after {} retry_later answers from central, or {} rounds in which central "
                            + "failed on them alone); an admin must requeue or reject them",
                    result.parked(),
                    settings.retries().maxAttempts(),
                    settings.retries().maxServerErrors());
        }
        if (result.finals().isEmpty()) {
            return;
        }
        result.finals().forEach(r -> suspicions.forget(r.id()));
        TestHook.AFTER_FINAL_COMMIT.enter();
        finalReceipts.publish(result.finals(), false);
    }

    /** Events parked since start. */
    long parked() {
        return parked.get();
    }

    /** Events whose answer is kept, not committed yet. */
    int unsettledEvents() {
        return unsettled.events();
    }
}
