package org.edgebridge.forward;

import java.time.Duration;
import java.time.Instant;
import java.util.function.IntFunction;
import java.util.function.IntSupplier;
import org.edgebridge.outbox.ClaimedEvent;
import org.edgebridge.outbox.Settlement;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How an event ends when central failed on it alone (a 5xx, a dropped connection or a timeout of a request that held
 * only it, with proof that central answers other events) or answered without its receipt: pending again after the
 * per-event backoff of its count, or, at {@code forwarder.maxServerErrors} (more while central fails other requests
 * too: {@link CentralFailureRate}), parked with the failure's own code. The count is the event's
 * {@code commands.central_failures}: it survives a restart. Pure apart from the log.
 */
final class AloneFailures {
    private static final Logger LOG = LoggerFactory.getLogger(AloneFailures.class);

    /** The code of an event parked because central answered it again and again without its receipt. */
    static final String NO_RECEIPT = "central_no_receipt";

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

    /** Parked at exactly {@code maxServerErrors} failures. */
    AloneFailures(int maxServerErrors, IntFunction<Duration> backoff) {
        this(maxServerErrors, () -> maxServerErrors, backoff);
    }

    /** @param parkCode the code it is parked with at the limit (null: none); {@code why} says what central did */
    Settlement settle(ClaimedEvent e, @Nullable String parkCode, String why, Instant now) {
        int n = e.centralFailures() + 1;
        int limit = Math.max(maxServerErrors, failuresToPark.getAsInt());
        String of = limit == maxServerErrors ? "forwarder.maxServerErrors=" + limit
                : limit + " (forwarder.maxServerErrors=" + maxServerErrors + ", more while central fails other requests too)";
        if (n >= limit) {
            LOG.warn("event {} of {} parked ({}): {} {} times ({}); every other event goes on",
                    e.commandId(), e.clientId(), parkCode, why, n, of);
            return new Settlement.Park(e.id(), parkCode, why + " " + n + " times (" + of + ")");
        }
        LOG.warn("event {} of {}: {} ({} of {} before it is parked as {}); held back",
                e.commandId(), e.clientId(), why, n, of, parkCode);
        return new Settlement.FailedAlone(e.id(), now.plus(backoff.apply(n)), why + " (" + n + " of " + of + ")");
    }
}
