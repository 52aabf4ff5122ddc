package org.edgebridge.forward;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import java.util.function.IntSupplier;
import org.edgebridge.outbox.CommandRecord;
import org.edgebridge.outbox.Expiries;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commands that must not run late (docs/protocol.md §1.4, §2.2): makes final the unsent ones whose expiry passed
 * ({@link Expiries#expireDue}) and hands their receipts to the devices, whether or not central is reachable; then tells
 * central of them in a request of their own ({@code "events":[]} and an {@code expired} list), through the same guards
 * as any request. Until central answered it, the devices of those commands send nothing more, so that central never
 * sees a later sequence before it knows why the earlier one will not come. A central that refuses the report as a
 * bad request (400, 413, 422: it does not know the field) is not asked again: the devices go on and central sees the
 * gap. A report central fails on (a 5xx, a timeout, a dropped connection) is sent again after a backoff of its own
 * while the other devices go on (the requests of those govern the forwarder's backoff and breaker); after
 * {@code forwarder.maxServerErrors} such failures in a row (more while central fails other requests too), with proof
 * that central answers other requests, it is
 * given up like a refused one: a report central cannot take must not hold those devices for ever. Runs on the
 * step's thread; the counters are shared.
 */
final class ExpiryReports {
    private static final Logger LOG = LoggerFactory.getLogger(ExpiryReports.class);
    /** Expired commands told of in one request: with ids of at most 128 characters and devices' ids, tens of KiB. */
    static final int PER_REQUEST = 100;

    private static final Duration SWEEP_EVERY = Duration.ofMillis(250);
    /** A report's JSON but for its two ids: names, quotes, the sequence (a long), expiresAt. */
    private static final int REPORT_FRAME_BYTES = 120;

    private final Expiries expiries;
    private final FinalReceipts finalReceipts;
    private final CentralCall call;
    private final ForwarderPolicy policy;
    private final ForwarderLoop.Sleeper rateLimitWait;
    private final Clock clock;
    private final int maxBytes;
    private final AtomicLong expired = new AtomicLong();
    private final AtomicLong reported = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private volatile Instant lastSweep = Instant.EPOCH;
    private volatile boolean maybeUnreported = true; // rows of an earlier run may wait to be reported
    private final IntSupplier maxFailures;
    private final IntFunction<Duration> backoff;
    private int failuresInARow; // guarded by this
    private @Nullable Instant firstFailureAt; // guarded by this
    private Instant notBefore = Instant.EPOCH; // guarded by this

    /**
     * @param maxBytes {@code forwarder.maxBytes}: the reports of one request take at most half of it
     * @param maxFailures failed reports in a row before they are given up: {@code forwarder.maxServerErrors}, more
     *     while central fails other requests too ({@link CentralFailureRate#failuresToPark()})
     * @param backoff the wait after the n-th failed report in a row
     */
    ExpiryReports(
            Expiries expiries,
            FinalReceipts finalReceipts,
            CentralCall call,
            ForwarderPolicy policy,
            ForwarderLoop.Sleeper rateLimitWait,
            Clock clock,
            int maxBytes,
            IntSupplier maxFailures,
            IntFunction<Duration> backoff) {
        this.maxFailures = maxFailures;
        this.backoff = backoff;
        this.maxBytes = maxBytes / 2;
        this.expiries = expiries;
        this.finalReceipts = finalReceipts;
        this.call = call;
        this.policy = policy;
        this.rateLimitWait = rateLimitWait;
        this.clock = clock;
    }

    /** Makes the commands that expired unsent final and publishes their receipts; a few times a second at most. */
    synchronized void sweepIfDue() {
        Instant now = clock.instant();
        if (Duration.between(lastSweep, now).compareTo(SWEEP_EVERY) < 0) {
            return;
        }
        lastSweep = now;
        List<CommandRecord> finals;
        do {
            finals = expiries.expireDue();
            if (!finals.isEmpty()) {
                expired.addAndGet(finals.size());
                maybeUnreported = true;
                LOG.info("{} commands expired before they were sent to central: rejected / expired", finals.size());
                finalReceipts.publish(finals, false);
            }
        } while (finals.size() >= Expiries.ROWS_PER_TRANSACTION);
    }

    /** The expired commands central has not been told of, at most {@link #PER_REQUEST}; none when there are none. */
    synchronized List<Expiries.Expired> unreported() {
        if (!maybeUnreported || clock.instant().isBefore(notBefore)) {
            return List.of();
        }
        List<Expiries.Expired> waiting = expiries.unreported(PER_REQUEST);
        if (waiting.isEmpty()) {
            maybeUnreported = false;
        }
        long bytes = 0;
        for (int i = 0; i < waiting.size(); i++) {
            Expiries.Expired x = waiting.get(i);
            bytes += REPORT_FRAME_BYTES
                    + IngestRequest.stringBytes(x.clientId())
                    + IngestRequest.stringBytes(x.commandId());
            if (i > 0 && bytes > maxBytes) {
                return waiting.subList(0, i);
            }
        }
        return waiting;
    }

    /**
     * Tells central of these in one request; the policy hears of its outcome like any request's.
     *
     * @return whether central took it (their devices may send again)
     */
    synchronized boolean report(String batchId, List<Expiries.Expired> told) {
        RequestOutcome outcome =
                call.send(batchId, List.of(), told, rateLimitWait, CentralCall.Failures.ONE_EVENT_FAILURES_DEFERRED);
        if (outcome instanceof RequestOutcome.Answered) {
            policy.answered();
            expiries.reported(told);
            reported.addAndGet(told.size());
            failuresInARow = 0;
            return true;
        }
        if (outcome instanceof RequestOutcome.Throttled throttled) {
            policy.throttled(throttled.retryAfter(), throttled.reason());
        } else if (outcome instanceof RequestOutcome.Failed failed) {
            return failed(told, failed);
        } else if (outcome instanceof RequestOutcome.Refused r) {
            policy.refused(r.reason(), r.redirect());
        } else if (outcome instanceof RequestOutcome.NoToken noToken) {
            policy.noToken(noToken.reason(), noToken.failuresInARow());
        }
        return false;
    }

    /**
     * A failed report: sent again after its own backoff while the other devices go on; given up after
     * {@code maxFailures} in a row if central answered another request since the first of them (it is up: the report
     * is what it fails on). A failure no event can cause (no connection) is central's: the forwarder backs off.
     */
    private boolean failed(List<Expiries.Expired> told, RequestOutcome.Failed failed) {
        Instant now = clock.instant();
        if (!failed.mayBeOneEvent()) {
            policy.failed(failed.reason(), failed.retryAfter());
            return false;
        }
        if (failuresInARow == 0) {
            firstFailureAt = now;
        }
        failuresInARow++;
        boolean centralAnswersOthers =
                policy.lastSuccessAt().filter(at -> at.isAfter(firstFailureAt)).isPresent();
        if (failuresInARow >= maxFailures.getAsInt() && centralAnswersOthers) {
            giveUp(told, failed.reason() + ", " + failuresInARow + " times while central answered other requests");
            return true;
        }
        Duration wait = backoff.apply(failuresInARow);
        notBefore = now.plus(wait.compareTo(failed.retryAfter()) >= 0 ? wait : failed.retryAfter());
        LOG.warn(
                "central failed on a report of {} expired commands ({}; {} in a row): sent again in {} ms, the other "
                        + "devices go on",
                told.size(),
                failed.reason(),
                failuresInARow,
                Duration.between(now, notBefore).toMillis());
        return false;
    }

    /** Central cannot take this report: not sent again; the devices go on and central sees a gap. */
    private void giveUp(List<Expiries.Expired> told, String why) {
        LOG.warn(
                "central refused a report of {} expired commands ({}): not sent again; their devices go on, and "
                        + "central sees a gap in their sequences (docs/protocol.md §2.2)",
                told.size(),
                why);
        expiries.reported(told);
        refused.addAndGet(told.size());
        failuresInARow = 0;
    }

    /** What the status page and /metrics show. */
    ForwarderStatus.Expiry figures() {
        return new ForwarderStatus.Expiry(expired.get(), reported.get(), refused.get());
    }
}
