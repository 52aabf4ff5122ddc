package org.edgebridge.forward;

import java.time.Clock;

/**
 * What follows when a round of {@link ServerErrorRounds} shows central failing, not one event: the hunt learns it, the
 * forwarder backs off (or pauses, for a 403 that central gives to everything), and the circuit breaker counts one failed
 * request. Runs on the thread of the step.
 */
final class CentralFailed {
    private final ServerErrorHunt hunt;
    private final ForwarderPolicy policy;
    private final CentralCall call;
    private final Clock clock;

    CentralFailed(ServerErrorHunt hunt, ForwarderPolicy policy, CentralCall call, Clock clock) {
        this.hunt = hunt;
        this.policy = policy;
        this.call = call;
        this.clock = clock;
    }

    /**
     * Central itself failed: back off as after any other failed request, and record one failure for the circuit
     * breaker (the requests of the round were not recorded); never less than the failure's Retry-After.
     *
     * @param refusesAll false when the failure followed only one event, new as a suspect, and nothing proves central
     *     well: a 403 then backs off like a 5xx instead of pausing (the next step sends the other devices' events first,
     *     and only if central refuses those too is it refusing the bridge)
     */
    void record(RequestOutcome.Failed failed, boolean refusesAll) {
        hunt.otherFailed(clock.instant());
        if (failed.cause() == RequestOutcome.Cause.FORBIDDEN && refusesAll) {
            policy.refused(failed.reason(), false); // central refusing the bridge: paused (docs/forwarding.md)
        } else {
            policy.failed(failed.reason(), failed.retryAfter());
        }
        if (failed.cause() != RequestOutcome.Cause.FORBIDDEN) {
            call.recordFailure(failed.reason());
        }
    }
}
