package org.edgebridge.forward;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.edgebridge.outbox.ClaimedEvent;

/**
 * Where a step sends its probe when it also has a main request (docs/forwarding.md, "Blame"): apart from the steps, so
 * that a probe central hangs on holds neither the main request nor the steps after it. One probe at a time; a later
 * step takes its outcome ({@link #takeDone}) and settles it. Thread-safe.
 */
interface ProbeSlot {
    /** A probe that is done: its events and what came of it. */
    record Done(List<ClaimedEvent> events, CentralCall.Done done) {}

    /** Whether a probe is under way or done and not yet taken: no other probe may go then. */
    boolean busy();

    /** The events of the probe under way or done and not yet taken (0: none). */
    int eventsOut();

    /** Sends a probe ({@code request} sends it and returns its outcome); the slot must not be busy. */
    void send(List<ClaimedEvent> events, Supplier<CentralCall.Done> request);

    /** Waits at most {@code grace} for the probe under way, then {@link #takeDone}. */
    Optional<Done> awaitDone(Duration grace);

    /** The probe's outcome once it is done (then the slot is free again); empty while it is under way, or if none. */
    Optional<Done> takeDone();

    /**
     * Stops, waiting at most {@code budget} for a probe under way, then interrupting it. @return the events of a probe
     * sent and not taken (done, or given up on): the caller releases them
     */
    List<ClaimedEvent> close(Duration budget);
}
