package org.edgebridge.broker;

import java.util.concurrent.atomic.AtomicLong;

/**
 * How often each of the broker's bounds on what devices can grow has bitten since start; {@link #status()} is what
 * {@code /api/status} shows under {@code broker.limits}. Thread-safe; every method is a counter increment.
 */
public final class BrokerLimits {
    private final AtomicLong retainFlagsCleared = new AtomicLong();
    private final AtomicLong retainedClearedAtStart = new AtomicLong();

    /** A PUBLISH came with retain=1; it was passed on without it (the bridge stores no retained messages). */
    public void retainFlagCleared() {
        retainFlagsCleared.incrementAndGet();
    }

    /** Retained messages found in the broker store at start (an older bridge kept them) and removed. */
    public void retainedClearedAtStart(int n) {
        retainedClearedAtStart.addAndGet(n);
    }

    public BrokerLimitsStatus status() {
        return new BrokerLimitsStatus(retainFlagsCleared.get(), retainedClearedAtStart.get());
    }
}
