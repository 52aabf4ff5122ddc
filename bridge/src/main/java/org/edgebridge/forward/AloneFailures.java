package org.edgebridge.forward;

import java.time.Duration;
import java.time.Instant;
import java.util.function.IntFunction;
import java.util.function.IntSupplier;
import org.edgebridge.outbox.ClaimedEvent;
import org.edgebridge.outbox.CommandState;
import org.edgebridge.outbox.Settlement;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How an event ends once a failure is proven its own (docs/forwarding.md, "Blame"): central failed a request that held
 * only it, or answered it without a believable receipt, while answering other events at the same time. Pending again
 * after the per-event backoff of its count, or, at {@code forwarder.maxServerErrors} (more while central fails other
 * requests too: {@link CentralFailureRate}), parked with the failure's own code (rejected for a 400, 413 or 422). The
 * count is the event's {@code commands.central_failures}: it survives a restart. Pure apart from the log.
 */
final class AloneFailures {
    private static final Logger LOG = LoggerFactory.getLogger(AloneFailures.class);

    private final int maxServerErrors;
    private final IntSupplier failuresToPark;
    private final IntFunction<Duration> backoff;

    /**
     * @param failuresToPark the failures that park an event now: {@code maxServerErrors} or more
     * @param backoff the per-event backoff of the n-th time
     */
    AloneFailures(int maxServerErrors, IntSupplier failuresToPark, IntFunction<Duration> backoff) {
        this.maxServerErrors = maxServerErrors;
        this.failuresToPark = failuresToPark;
        this.backoff = backoff;
    }

    /** A proven failure of {@code e} alone: pending again after its backoff, or at the limit parked (or rejected). */
    Settlement settle(ClaimedEvent e, RequestOutcome.Failed failed, Instant now) {
        return settle(
                e,
                failed.parkCode(),
                failed.cause().rejectsAtLimit(),
                "central failed on this event while it answered others (" + failed.reason() + ")",
                now);
    }

    /**
     * @param parkCode the code it is parked with at the limit (null: none); {@code why} says what central did
     * @param rejectAtLimit at the limit the event is finally rejected with {@code parkCode} instead of parked
     */
    Settlement settle(ClaimedEvent e, @Nullable String parkCode, boolean rejectAtLimit, String why, Instant now) {
        int n = e.centralFailures() + 1;
        int limit = Math.max(maxServerErrors, failuresToPark.getAsInt());
        String of = limit == maxServerErrors
                ? "forwarder.maxServerErrors=" + limit
                : limit + " (forwarder.maxServerErrors=" + maxServerErrors
                        + ", more while central fails other requests too)";
        if (n >= limit && rejectAtLimit) {
            LOG.warn(
                    "event {} of {} rejected ({}): {} {} times ({})",
                    e.commandId(),
                    e.clientId(),
                    parkCode,
                    why,
                    n,
                    of);
            return new Settlement.Final(
                    e.id(), CommandState.REJECTED, parkCode, why + " " + n + " times (" + of + ")", null);
        }
        if (n >= limit) {
            LOG.warn(
                    "event {} of {} parked ({}): {} {} times ({}); every other event goes on",
                    e.commandId(),
                    e.clientId(),
                    parkCode,
                    why,
                    n,
                    of);
            return new Settlement.Park(e.id(), parkCode, why + " " + n + " times (" + of + ")");
        }
        LOG.warn(
                "event {} of {}: {} ({} of {} before it is parked as {}); held back",
                e.commandId(),
                e.clientId(),
                why,
                n,
                of,
                parkCode);
        return new Settlement.FailedAlone(e.id(), now.plus(backoff.apply(n)), why + " (" + n + " of " + of + ")");
    }
}
