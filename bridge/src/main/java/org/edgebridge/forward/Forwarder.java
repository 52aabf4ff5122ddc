package org.edgebridge.forward;

import io.github.resilience4j.bulkhead.BulkheadRegistry;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.ratelimiter.RateLimiterRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.edgebridge.forward.auth.ClientCertificateFiles;
import org.edgebridge.forward.auth.OAuth2Tokens;
import org.edgebridge.lifecycle.Component;
import org.edgebridge.lifecycle.Once;
import org.edgebridge.outbox.ClaimedEvent;
import org.edgebridge.outbox.ForwarderOutbox;
import org.edgebridge.outbox.SentRequest;
import org.edgebridge.receipt.ReceiptSender;
import org.edgebridge.worker.Workers;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the outbox to central in batches (docs/protocol.md §2) and publishes each final receipt after committing it.
 * Built of small parts, each in its own class:
 * <ul>
 *   <li>{@link ForwarderLoop}: the threads and their waits (wake-ups, idle poll, linger); the only part that blocks;
 *   <li>{@link ForwardStep}: one synchronous step (claim, send, classify, settle) returning what it did
 *       ({@link StepResult});
 *   <li>{@link ForwarderPolicy}: paused, backing off or held by the circuit breaker, decided on the injected clock;
 *   <li>{@link Suspicions} (which events are suspected of making central fail: the probe and the comparison of a
 *       step), {@link Exchange} (a step's requests, settled), {@link BatchSender} and {@link CentralCall} (the guards:
 *       rate limiters, circuit breaker), {@link ReplyClassifier}, {@link BatchSettler} and {@link FinalReceipts}
 *       (publishes the finals).
 * </ul>
 *
 * <p>Threads: {@code forwarder.maxConcurrentRequests} threads ("forwarder", or "forwarder-N"), owned by the loop;
 * "forwarder-probe" ({@link ProbeThread}), which sends the probes apart, started and stopped with the loop.
 * {@link #wake()}, {@link #pause()}, {@link #resume()} and {@link #status()} may be called from any thread.
 *
 * <p>Guards (Resilience4j): a rate limiter for requests per second and one for events per second (a batch of n takes
 * n permits), a bulkhead for requests in flight, and a circuit breaker around the HTTP call that opens on repeated
 * failures and half-opens with one probe.
 */
public final class Forwarder implements Component, ForwarderControl, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Forwarder.class);

    private final ForwarderSettings settings;
    private final CentralGuards guards;
    private final ForwarderPolicy policy;
    private final FinalReceipts finalReceipts;
    private final BatchSettler settler;
    private final BatchSender sender;
    private final ForwardStep step;
    private final ForwarderLoop loop;
    private final ForwarderOutbox outbox;
    private final ClaimedAhead claimedAhead;
    private final ExpiryReports expiryReports;
    private final CentralFailureRate failureRate;
    private final ReceiptViolations receiptViolations;
    private final CentralClient client;
    private final Optional<ClientCertificateFiles> certificates;
    private final CentralAuthorization authorization;
    private final ProbeThread probeThread;
    private final Exchange exchange;
    private final ProbeSlot probes;

    /** @param storedUpTo the highest outbox row whose {@code stored} receipt has been handed out */
    /**
     * @param meters where the requests' figures go ({@code edgebridge_forwarder_request_duration_seconds}, batch sizes)
     */
    public Forwarder(
            ForwarderSettings settings,
            ForwarderOutbox outbox,
            ReceiptSender receipts,
            LongSupplier storedUpTo,
            Clock clock,
            Workers threads,
            MeterRegistry meters) {
        this(settings, outbox, receipts, storedUpTo, clock, threads, meters, null, null, null);
    }

    /**
     * For tests: {@code rateLimitWait} waits the rate limiters' waits instead of the loop (null: the loop); for the
     * blame simulation, {@code central} answers instead of {@link IngestClient} (null: HTTP to ingest.url) and
     * {@code probeSlot} sends the probes apart on the simulation's clock (null: a thread).
     */
    Forwarder(
            ForwarderSettings settings,
            ForwarderOutbox outbox,
            ReceiptSender receipts,
            LongSupplier storedUpTo,
            Clock clock,
            Workers threads,
            MeterRegistry meters,
            ForwarderLoop.@Nullable Sleeper rateLimitWait,
            @Nullable IngestPort central,
            @Nullable ProbeSlot probeSlot) {
        this.settings = settings;
        this.outbox = outbox;
        this.loop = new ForwarderLoop(settings.batching().linger());
        this.guards = new CentralGuards(settings, clock);
        this.policy = new ForwarderPolicy(settings, clock, guards.breaker);
        this.failureRate = new CentralFailureRate(settings.retries().maxServerErrors(), clock);
        AloneFailures alone = new AloneFailures(
                settings.retries().maxServerErrors(),
                failureRate::failuresToPark,
                n -> ReplyClassifier.backoff(settings, n));
        ReplyClassifier classifier = new ReplyClassifier(settings, clock, alone);
        Suspicions suspicions = new Suspicions(n -> ReplyClassifier.backoff(settings, n), alone);
        this.finalReceipts = new FinalReceipts(outbox, receipts);
        this.settler = new BatchSettler(settings, outbox, finalReceipts, suspicions);
        this.receiptViolations = new ReceiptViolations(clock);
        this.certificates = settings.credentials().clientCertificate().map(c -> new ClientCertificateFiles(c, clock));
        this.client = CentralClient.of(settings, certificates, threads);
        CertificateBound<java.net.http.HttpClient> tokenHttp = client instanceof IngestClient jdk
                ? jdk.clients()
                : IngestClient.clients(settings, certificates); // made at the first token request
        this.authorization = new CentralAuthorization(
                settings.credentials().token(),
                settings.credentials()
                        .oauth2()
                        .map(o -> new OAuth2Tokens(
                                o,
                                tokenHttp::get,
                                settings.requests().timeout(),
                                e -> TransportFailures.describe(
                                                o.tokenUrl(), settings.central().proxy(), e)
                                        .replace("ingest.url", "ingest.oauth2.tokenUrl"),
                                clock)));
        CentralCall call = new CentralCall(
                settings,
                guards,
                central != null ? central : client,
                classifier,
                receiptViolations,
                new RequestFigures(meters),
                authorization,
                client.wire());
        this.claimedAhead = new ClaimedAhead(settings, storedUpTo, guards);
        ForwarderLoop.Sleeper waits = rateLimitWait != null ? rateLimitWait : loop::sleep;
        this.sender = new BatchSender(call, waits, clock);
        this.probeThread = new ProbeThread(threads, loop::wake);
        this.exchange = new Exchange(
                sender,
                settler,
                suspicions,
                policy,
                call,
                failureRate,
                claimedAhead,
                clock,
                settings.breaker().openFor(),
                probeSlot != null ? probeSlot : probeThread,
                settings.retries().backoff().max());
        this.probes = probeSlot != null ? probeSlot : probeThread;
        this.expiryReports = new ExpiryReports(
                outbox.expiries(),
                finalReceipts,
                call,
                policy,
                waits,
                clock,
                settings.batching().maxBytes().intBytes(),
                failureRate::failuresToPark,
                classifier::backoff);
        this.step = new ForwardStep(
                settings,
                outbox,
                storedUpTo,
                clock,
                policy,
                guards,
                settler,
                finalReceipts,
                suspicions,
                exchange,
                claimedAhead,
                expiryReports);
        loop.addThreads(threads, settings.requests().maxConcurrent(), step::run);
    }

    public CircuitBreaker circuitBreaker() {
        return guards.breaker;
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

    private final Once once = new Once();

    @Override
    public void start() {
        if (once.start()) {
            probeThread.start();
            loop.start();
        }
    }

    /** New rows may be due: end an idle wait. */
    public void wake() {
        loop.wake();
    }

    /** Stops sending until {@link #resume()}; a request under way finishes. */
    public void pause() {
        policy.pause();
    }

    /** Sends again at once, also ending a pause caused by central's 401/403/4xx and any backoff. */
    public void resume() {
        policy.resume();
        loop.wake();
        loop.endWait();
    }

    @Override
    public RetryNow retryNow() {
        Optional<Instant> wasUntil = policy.nextAttemptAt();
        boolean breakerWasOpen = policy.endWaits();
        int due = outbox.makePendingDue();
        loop.endWait();
        return new RetryNow(wasUntil, breakerWasOpen, due);
    }

    /** One step on the caller's thread, for tests (the forwarder need not be started). */
    StepResult forwardOnce() {
        return step.run();
    }

    ForwarderPolicy policy() {
        return policy;
    }

    @Override
    public WireBytes wireBytes() {
        return client.wire();
    }

    @Override
    public ForwarderStatus status() {
        return new ForwarderStatus(
                loop.running() ? policy.state().statusName() : ForwarderState.STOPPED.statusName(),
                guards.breaker.getState().name().toLowerCase(),
                policy.pausedByAdmin(),
                policy.pauseReason(),
                policy.lastSuccessAt(),
                policy.lastError(),
                policy.lastErrorAt(),
                policy.nextAttemptAt(),
                policy.consecutiveFailures(),
                sender.requests(),
                sender.eventsSent(),
                finalReceipts.count(),
                settler.parked(),
                settings.requests().perSecond(),
                settings.batching().eventsPerSecond(),
                settler.unsettledEvents(),
                step.failedSteps(),
                receiptViolations.view(),
                client.cutReplies(),
                sender.missingReceipts(),
                sender.lastMissingReceiptAt(),
                certificates.map(ClientCertificateFiles::status),
                authorization.status(),
                expiryReports.figures(),
                new ForwarderStatus.ServerErrors(
                        settings.retries().maxServerErrors(), failureRate.share(), failureRate.failuresToPark()));
    }

    /** {@link #close(Duration)} with the request timeout and 5 s, for try-with-resources. */
    @Override
    public void close() {
        close(settings.requests().timeout().plusSeconds(5));
    }

    /**
     * Stops after the request under way, waiting at most {@code budget}; then interrupts it (the HTTP call
     * ends, its events are released; a claim left behind returns to pending at the next start). A batch claimed
     * ahead for the next request goes back to pending.
     */
    @Override
    public void close(Duration budget) {
        if (!once.close()) {
            return;
        }
        long deadline = System.nanoTime() + budget.toNanos();
        loop.close(budget);
        List<ClaimedEvent> probe = probes.close(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        if (!probe.isEmpty()) { // it may have reached central: maybe sent, never expired here as unsent
            settler.release(
                    SentRequest.unmeasured(BatchIds.next()), probe, "released: the bridge stopped during a probe");
        }
        exchange.releaseCarried();
        client.close();
        claimedAhead.releaseAll(outbox, "not sent: the bridge stopped");
        if (!settler.settleKept()) {
            LOG.warn(
                    "stopping with central's answers for {} events not committed (the outbox is not writable): their "
                            + "claims return to pending at the next start and central answers them as duplicates",
                    settler.unsettledEvents());
        }
    }
}
