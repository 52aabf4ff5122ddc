package org.edgebridge.faults;

import java.time.Duration;

/**
 * Time the fault suites let pass on purpose: how long a fault lasts, when in a bridge's life a kill lands, the quiet
 * gap between two faults. These durations are the plan, part of what is tested, and this is the one place that lets
 * them pass; a wait for a result is an Awaitility condition with a timeout, never this.
 */
final class FaultTiming {
    /** Between two faults of the plan: each fault meets traffic that flows again. */
    static final Duration QUIET_GAP = Duration.ofSeconds(2);

    /**
     * How long the device link passes no bytes: past 1.5 x the devices' keep-alive ({@link DeviceFleet#KEEP_ALIVE}),
     * so that both the broker and the devices give the connections up.
     */
    static final Duration DEVICE_LINK_BLACK_HOLE = Duration.ofSeconds(12);

    private FaultTiming() {}

    /** Lets {@code length} of the plan pass. */
    static void hold(Duration length) throws InterruptedException {
        Thread.sleep(length.toMillis());
    }
}
