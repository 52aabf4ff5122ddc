package org.edgebridge.forward;

import io.github.resilience4j.bulkhead.BulkheadRegistry;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.ratelimiter.RateLimiterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.edgebridge.outbox.ClaimedEvent;
import org.edgebridge.outbox.CommandRecord;
import org.edgebridge.outbox.CommandState;
import org.edgebridge.outbox.CrashWindow;
import org.edgebridge.outbox.Outbox;
import org.edgebridge.outbox.Settlement;
import org.edgebridge.receipt.ReceiptSender;
import org.edgebridge.worker.TestFault;
import org.edgebridge.worker.Workers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the outbox to central in batches (docs/protocol.md §2) and publishes each final receipt after committing it.
 *
 * <p>Threads: {@code forwarder.maxConcurrentRequests} threads ("forwarder", or "forwarder-N"), owned by this
 * class, each call {@link #forwardOnce()} in a loop; that method does one step synchronously and says how long
 * to wait. A Resilience4j bulkhead caps requests in flight; a claim never takes a device whose lowest open
 * event is already in flight, so one device's events are never in two requests at once.
 * {@link #wake()}, {@link #pause()} and {@link #resume()} may be called from any thread.
 *
 * <p>Guards (Resilience4j): a rate limiter for requests per second and one for events per second (a batch of
 * n takes n permits), and a circuit breaker around the HTTP call that opens on repeated failures and
 * half-opens with one probe.
 */
public final class Forwarder implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Forwarder.class);
    private static final Duration IDLE_POLL = Duration.ofMillis(500);
    private static final Duration BREAKER_POLL = Duration.ofMillis(250);

    private final ForwarderSettings settings;
    private final Outbox outbox;
    private final ReceiptSender receipts;
    private final LongSupplier storedUpTo;
    private final Clock clock;
    private final ReplyClassifier classifier;
    private final CentralCall call;
    private final CentralGuards guards;
    private final CircuitBreaker breaker;
    private final List<Thread> workers = new ArrayList<>();
    private final Object signal = new Object();
    private boolean woken;
    private volatile boolean running;

    private volatile boolean pausedByAdmin;
    private volatile Instant pausedUntil;
    private volatile String pauseReason;
    private volatile boolean pausedByRedirect;
    private volatile Instant backoffUntil = Instant.EPOCH;
    private volatile Instant lastSuccessAt;
    private volatile String lastError;
    private volatile Instant lastErrorAt;
    private volatile String state = "idle";
    private final AtomicInteger consecutiveFailures = new AtomicInteger();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong eventsSent = new AtomicLong();
    private final AtomicLong parked = new AtomicLong();
    private final UnsettledAnswers unsettled = new UnsettledAnswers();
    private final ServerErrorHunt hunt = new ServerErrorHunt();
    private final FinalReceipts finalReceipts;
    private final ServerErrorRounds rounds;
    private volatile String lastStepFailure;
    private final AtomicInteger failedStepsInARow = new AtomicInteger();
    private final AtomicLong failedSteps = new AtomicLong();

    /** @param storedUpTo the highest outbox row whose {@code stored} receipt has been handed out */
    public Forwarder(ForwarderSettings settings, Outbox outbox, ReceiptSender receipts, LongSupplier storedUpTo, Clock clock,
            Workers threads) {
        this.settings = settings;
        this.outbox = outbox;
        this.receipts = receipts;
        this.storedUpTo = storedUpTo;
        this.clock = clock;
        this.finalReceipts = new FinalReceipts(outbox, receipts);
        this.classifier = new ReplyClassifier(settings, clock);
        this.guards = new CentralGuards(settings);
        this.call = new CentralCall(settings, guards, new IngestClient(settings), classifier);
        this.rounds = new ServerErrorRounds(hunt, new ServerErrorRounds.Sender() {
            @Override
            public Forwarded send(List<ClaimedEvent> events, ServerErrorHunt.Round round) {
                return sendAll(events, round);
            }

            @Override
            public void release(String batchId, List<ClaimedEvent> events, String reason) {
                releaseAll(batchId, events, reason);
            }

            @Override
            public void settle(String batchId, List<Settlement> settlements) {
                Forwarder.this.settle(batchId, settlements);
            }

            @Override
            public boolean stillSending() {
                return Forwarder.this.stillSending();
            }

            @Override
            public void backOff(String reason) {
                Forwarder.this.backOff(reason);
            }

            @Override
            public List<ClaimedEvent> notHeldBack(String batchId, List<ClaimedEvent> first, Set<Long> finalIds,
                    List<ClaimedEvent> rest) {
                return Forwarder.this.notHeldBack(batchId, first, finalIds, rest);
            }
        }, settings.maxServerErrors(), classifier::backoff, clock);
        this.breaker = guards.breaker;
        this.breaker.getEventPublisher().onStateTransition(e ->
                LOG.warn("circuit breaker to central: {}", e.getStateTransition()));
        for (int i = 1; i <= settings.maxConcurrentRequests(); i++) {
            workers.add(threads.thread(settings.maxConcurrentRequests() == 1 ? "forwarder" : "forwarder-" + i, this::loop));
        }
    }

    public CircuitBreaker circuitBreaker() {
        return breaker;
    }

    /** The circuit breaker's registry, for metrics. */
    public CircuitBreakerRegistry circuitBreakers() {
        return guards.breakers;
    }

    /** The rate limiters' registry, for metrics. */
    public RateLimiterRegistry rateLimiters() {
        return guards.limiters;
    }

    /** The bulkhead's registry, for metrics. */
    public BulkheadRegistry bulkheads() {
        return guards.bulkheads;
    }

    public void start() {
        running = true;
        workers.forEach(Thread::start);
    }

    /** New rows may be due: end an idle wait. */
    public void wake() {
        synchronized (signal) {
            woken = true;
            signal.notifyAll();
        }
    }

    /** Stops sending until {@link #resume()}; a request under way finishes. */
    public void pause() {
        if (!pausedByAdmin) {
            LOG.info("forwarder paused by an admin");
        }
        pausedByAdmin = true;
    }

    /** Sends again at once, also ending a pause caused by central's 401/403/4xx and any backoff. */
    public void resume() {
        if (pausedByAdmin || pausedUntil != null) {
            LOG.info("forwarder resumed by an admin");
        }
        pausedByAdmin = false;
        pausedUntil = null;
        pauseReason = null;
        pausedByRedirect = false;
        backoffUntil = Instant.EPOCH;
        wake();
    }

    private void loop() {
        boolean wasIdle = false;
        while (running) {
            Step step;
            try {
                step = forwardOnce();
                int failed = failedStepsInARow.getAndSet(0);
                if (failed > 0) {
                    LOG.info("forwarder steps succeed again after {} failed ones", failed);
                    lastStepFailure = null;
                }
            } catch (RuntimeException e) {
                String failure = String.valueOf(e.getMessage());
                failedStepsInARow.incrementAndGet();
                failedSteps.incrementAndGet();
                if (!failure.equals(lastStepFailure)) {
                    LOG.error("forwarder step failed; trying again every 1 s (the same failure again is not logged)", e);
                }
                lastStepFailure = failure;
                step = new Step(Duration.ofSeconds(1), false);
            }
            boolean wokenEarly = await(step);
            if (wasIdle && wokenEarly && !settings.linger().isZero()) {
                await(new Step(settings.linger(), false));
            }
            wasIdle = step.idle();
        }
    }

    /** How long to wait before the next step; an idle wait ends early on {@link #wake()}. */
    record Step(Duration delay, boolean idle) {}

    /** @return true if an idle wait was ended by {@link #wake()} */
    private boolean await(Step step) {
        long deadline = System.nanoTime() + step.delay().toNanos();
        synchronized (signal) {
            while (running) {
                if (woken && step.idle()) {
                    woken = false;
                    return true;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(signal, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        return false;
    }

    /** One step: claim a batch, send it, settle it. Runs on the forwarder thread (or a test's). */
    Step forwardOnce() {
        Instant now = clock.instant();
        if (!settleKept()) {
            state = "outbox_unwritable";
            return new Step(Duration.ofSeconds(1), false);
        }
        finalReceipts.republishIfDue(now);
        if (pausedByAdmin) {
            state = "paused_by_admin";
            return new Step(IDLE_POLL, true);
        }
        Instant until = pausedUntil;
        if (until != null && now.isBefore(until)) {
            state = pausedByRedirect ? "redirected_by_central" : "paused_by_central";
            return new Step(Duration.between(now, until), false);
        }
        if (now.isBefore(backoffUntil)) {
            state = "backing_off";
            return new Step(Duration.between(now, backoffUntil), false);
        }
        if (breaker.getState() == CircuitBreaker.State.OPEN) {
            state = "breaker_open";
            return new Step(BREAKER_POLL, false);
        }
        if (!guards.bulkhead.tryAcquirePermission()) {
            return new Step(IDLE_POLL, true);
        }
        try {
            String claimId = newBatchId();
            List<ClaimedEvent> events = outbox.claim(settings.batchLimit(), settings.maxBytes(), storedUpTo.getAsLong(), claimId);
            if (events.isEmpty()) {
                state = "idle";
                return new Step(IDLE_POLL, true);
            }
            state = "sending";
            try {
                CrashWindow.AFTER_CLAIM.enter();
                TestFault.FORWARDER.enter();
                sendAll(events, null);
            } catch (RuntimeException e) {
                releaseClaim(claimId, e);
                throw e;
            }
            return new Step(breaker.getState() == CircuitBreaker.State.CLOSED ? Duration.ZERO : BREAKER_POLL, false);
        } finally {
            guards.bulkhead.onComplete();
        }
    }

    /** An unexpected failure between claim and settle: whatever of the claim is still in flight is pending again. */
    private void releaseClaim(String claimId, RuntimeException cause) {
        try {
            int released = outbox.releaseClaim(claimId, "released after an unexpected failure: " + cause);
            LOG.warn("unexpected failure while sending a batch; its {} events still in flight are pending again", released);
        } catch (RuntimeException e) {
            LOG.warn("could not release the claim of a failed batch ({}); it returns to pending at the next start", e.toString());
        }
    }

    /**
     * Sends events in one request (through the circuit breaker, which may refuse it) and settles them.
     * On 413/400/422 the batch is halved; the second half goes only where the first half left no open
     * event of the same device ahead of it. A repeated 5xx or timeout is bisected the same way
     * ({@link ServerErrorHunt}).
     *
     * @param round the bisection this request belongs to, or null: a failed request of a round is not settled
     *     here but kept in flight for the round
     */
    private Forwarded sendAll(List<ClaimedEvent> events, ServerErrorHunt.Round round) {
        if (round == null) {
            List<ClaimedEvent> suspects = hunt.suspectsIn(events);
            if (!suspects.isEmpty()) {
                return rounds.quarantine(events, suspects);
            }
        }
        String batchId = newBatchId();
        RequestOutcome outcome = call.send(batchId, events, nanos -> await(new Step(Duration.ofNanos(nanos), false)),
                round != null);
        if (!(outcome instanceof RequestOutcome.NotPermitted)) {
            requests.incrementAndGet();
        }
        if (reachedCentral(outcome)) {
            eventsSent.addAndGet(events.size());
        }
        Instant now = clock.instant();
        Set<Long> finalIds = new HashSet<>();
        if (outcome instanceof RequestOutcome.Answered answered) {
            onSuccess();
            if (round != null) {
                round.answered();
            }
            for (Settlement s : answered.settlements()) {
                if (s instanceof Settlement.Final) {
                    finalIds.add(s.id());
                }
            }
            settle(batchId, answered.settlements());
        } else if (outcome instanceof RequestOutcome.Throttled throttled) {
            int failures = consecutiveFailures.incrementAndGet();
            Duration wait = throttled.retryAfter().isZero() ? jitteredBackoff(failures) : throttled.retryAfter();
            backoffUntil = now.plus(wait);
            onFailure(throttled.reason());
            releaseAll(batchId, events, throttled.reason());
        } else if (outcome instanceof RequestOutcome.Failed failed) {
            if (round != null) {
                round.failed(events, failed);
            } else if (hunt.worthHunting(events, failed)) {
                ServerErrorHunt.Round r = new ServerErrorHunt.Round();
                r.failed(events, failed);
                finalIds.addAll(rounds.bisect(events, r));
                rounds.finishRound(batchId, r, failed);
            } else {
                hunt.failedTogether(events);
                hunt.otherFailed(now);
                backOff(failed.reason());
                releaseAll(batchId, events, failed.reason());
            }
            return new Forwarded(finalIds, true);
        } else if (outcome instanceof RequestOutcome.Refused refused) {
            if (pausedUntil == null) {
                LOG.error("central refused the bridge ({}): forwarding paused, retried every {} s; check ingest.url and ingest.token",
                        refused.reason(), settings.authRetryInterval().toSeconds());
            }
            pausedUntil = now.plus(settings.authRetryInterval());
            pauseReason = refused.reason();
            pausedByRedirect = refused.redirect();
            onFailure(refused.reason());
            releaseAll(batchId, events, refused.reason());
        } else if (outcome instanceof RequestOutcome.Split split) {
            onSuccess();
            if (round != null) {
                round.answered();
            }
            finalIds.addAll(split(batchId, events, split, round));
        } else if (outcome instanceof RequestOutcome.NotPermitted notPermitted) {
            releaseAll(batchId, events, "not sent: " + notPermitted.reason());
        }
        return new Forwarded(finalIds, false);
    }

    /** Whether central received the request: it answered with an HTTP status (a timeout may or may not have). */
    private static boolean reachedCentral(RequestOutcome outcome) {
        return outcome instanceof RequestOutcome.Answered || outcome instanceof RequestOutcome.Split
                || outcome instanceof RequestOutcome.Throttled || outcome instanceof RequestOutcome.Refused
                || outcome instanceof RequestOutcome.Failed f && f.serverError();
    }

    private void backOff(String reason) {
        Duration wait = jitteredBackoff(consecutiveFailures.incrementAndGet());
        backoffUntil = clock.instant().plus(wait);
        onFailure(reason);
    }

    private boolean stillSending() {
        return pausedUntil == null && !clock.instant().isBefore(backoffUntil);
    }

    /**
     * The events of {@code rest} whose devices {@code first} does not hold back (an event of the device in
     * {@code first} that is not final); the others are released.
     */
    private List<ClaimedEvent> notHeldBack(String batchId, List<ClaimedEvent> first, Set<Long> finalIds,
            List<ClaimedEvent> rest) {
        Set<String> blocked = new HashSet<>();
        for (ClaimedEvent e : first) {
            if (!finalIds.contains(e.id())) {
                blocked.add(e.clientId());
            }
        }
        List<ClaimedEvent> next = new ArrayList<>();
        List<ClaimedEvent> held = new ArrayList<>();
        for (ClaimedEvent e : rest) {
            (blocked.contains(e.clientId()) ? held : next).add(e);
        }
        releaseAll(batchId, held, "an earlier event of the same device in this batch is not final yet");
        return next;
    }

    private Set<Long> split(String batchId, List<ClaimedEvent> events, RequestOutcome.Split split,
            ServerErrorHunt.Round round) {
        if (events.size() == 1) {
            ClaimedEvent e = events.get(0);
            settle(batchId, List.of(new Settlement.Final(e.id(), CommandState.REJECTED, split.code(), split.reason(), null)));
            return Set.of(e.id());
        }
        int half = events.size() / 2;
        List<ClaimedEvent> first = events.subList(0, half);
        Set<Long> finalIds = new HashSet<>(sendAll(first, round).finals());
        List<ClaimedEvent> next = notHeldBack(batchId, first, finalIds, events.subList(half, events.size()));
        if (next.isEmpty()) {
            return finalIds;
        }
        if (!stillSending()) {
            releaseAll(batchId, next, "not sent: central is failing or paused");
            return finalIds;
        }
        finalIds.addAll(sendAll(next, round).finals());
        return finalIds;
    }

    private void settle(String batchId, List<Settlement> settlements) {
        Outbox.SettleResult result;
        try {
            result = outbox.settle(batchId, settlements, settings.maxAttempts());
        } catch (RuntimeException e) {
            LOG.warn("could not commit central's answer for {} events ({}); kept, committed before anything new is sent",
                    settlements.size(), e.getMessage());
            unsettled.keep(batchId, settlements);
            return;
        }
        applied(result);
    }

    /** Commits the answers kept by {@link #settle}. @return true when none is left */
    private boolean settleKept() {
        return unsettled.commitAll(answer -> {
            Outbox.SettleResult result = outbox.settle(answer.batchId(), answer.settlements(), settings.maxAttempts());
            LOG.info("committed a kept answer of central for {} events", answer.settlements().size());
            return result;
        }, this::applied);
    }

    private void applied(Outbox.SettleResult result) {
        if (result.parked() > 0) {
            parked.addAndGet(result.parked());
            LOG.warn("{} commands parked (after {} retry_later answers from central, or {} rounds in which central failed on "
                    + "them alone); an admin must requeue or reject them", result.parked(), settings.maxAttempts(),
                    settings.maxServerErrors());
        }
        if (result.finals().isEmpty()) {
            return;
        }
        result.finals().forEach(r -> hunt.forget(r.id()));
        CrashWindow.AFTER_FINAL_COMMIT.enter();
        finalReceipts.publish(result.finals(), false);
    }



    private void releaseAll(String batchId, List<ClaimedEvent> events, String reason) {
        if (events.isEmpty()) {
            return;
        }
        List<Settlement> releases = new ArrayList<>(events.size());
        for (ClaimedEvent e : events) {
            releases.add(new Settlement.Release(e.id(), reason));
        }
        settle(batchId, releases);
    }

    private void onSuccess() {
        int failures = consecutiveFailures.getAndSet(0);
        if (failures > 0 || pausedUntil != null) {
            LOG.info("central answers again after {} failed requests", failures);
        }
        pausedUntil = null;
        pauseReason = null;
        pausedByRedirect = false;
        lastSuccessAt = clock.instant();
    }

    private void onFailure(String reason) {
        if (lastError == null || !lastError.equals(reason)) {
            LOG.warn("request to central failed: {}", reason);
        }
        lastError = reason;
        lastErrorAt = clock.instant();
    }

    /** backoffInitial doubled per consecutive failure, capped at backoffMax, with the upper half jittered. */
    private Duration jitteredBackoff(int failures) {
        Duration base = classifier.backoff(failures);
        long half = base.toMillis() / 2;
        return Duration.ofMillis(half + ThreadLocalRandom.current().nextLong(half + 1));
    }

    private static String newBatchId() {
        return UUID.randomUUID().toString();
    }

    public ForwarderStatus status() {
        Instant until = pausedUntil;
        Instant next = until != null ? until : backoffUntil.isAfter(clock.instant()) ? backoffUntil : null;
        return new ForwarderStatus(running ? state : "stopped", breaker.getState().name().toLowerCase(), pausedByAdmin,
                Optional.ofNullable(pauseReason), Optional.ofNullable(lastSuccessAt), Optional.ofNullable(lastError),
                Optional.ofNullable(lastErrorAt), Optional.ofNullable(next), consecutiveFailures.get(), requests.get(),
                eventsSent.get(), finalReceipts.count(), parked.get(), settings.requestsPerSecond(), settings.eventsPerSecond(),
                unsettled.events(), failedSteps.get());
    }

    /** Stops after the request under way, waiting at most the request timeout. */
    @Override
    public void close() {
        close(settings.timeout().plusSeconds(5));
    }

    /**
     * Stops after the request under way, waiting at most {@code budget}; then interrupts it (the HTTP call
     * ends, its events are released; a claim left behind returns to pending at the next start).
     */
    public void close(Duration budget) {
        running = false;
        synchronized (signal) {
            signal.notifyAll();
        }
        long deadline = System.nanoTime() + budget.toNanos();
        try {
            for (Thread worker : workers) {
                worker.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
                if (worker.isAlive()) {
                    LOG.warn("{} still busy after the shutdown budget; interrupting its request", worker.getName());
                    worker.interrupt();
                    worker.join(5_000);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!settleKept()) {
            LOG.warn("stopping with central's answers for {} events not committed (the outbox is not writable): their "
                    + "claims return to pending at the next start and central answers them as duplicates", unsettled.events());
        }
    }

}
