package org.edgebridge.forward;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.edgebridge.TestClock;
import org.edgebridge.outbox.ClaimedEvent;
import org.jspecify.annotations.Nullable;

/**
 * The blame simulation's {@link ProbeSlot}: the scripted central answers a probe at once, on a clock of its own (a hang
 * moves no clock), and the probe is done for the steps only once the simulation's clock has reached its send time plus
 * what central took ({@code ingest.timeout} for a hang). So a probe central hangs on runs beside the steps, as the
 * product's {@link ProbeThread} does. With {@code apart} false it is sent inline, moving the clock, as a step sent
 * its probe before the main request until 2026-12-06 (for the figures before and after).
 */
final class SimulatedProbeSlot implements ProbeSlot {
    private final TestClock clock;
    private final ScriptedCentral central;
    private final boolean apart;
    private @Nullable List<ClaimedEvent> events;
    private CentralCall.@Nullable Done done;
    private Instant doneAt = Instant.EPOCH;

    SimulatedProbeSlot(TestClock clock, ScriptedCentral central, boolean apart) {
        this.clock = clock;
        this.central = central;
        this.apart = apart;
    }

    @Override
    public boolean busy() {
        return events != null;
    }

    @Override
    public int eventsOut() {
        return events == null ? 0 : events.size();
    }

    @Override
    public void send(List<ClaimedEvent> probe, Supplier<CentralCall.Done> request) {
        events = List.copyOf(probe);
        Instant sentAt = clock.instant();
        if (apart) {
            CentralCall.Done[] result = new CentralCall.Done[1];
            Duration took = central.apart(() -> result[0] = request.get());
            done = result[0];
            doneAt = sentAt.plus(took);
        } else {
            done = request.get();
            doneAt = clock.instant();
        }
    }

    /** When the probe under way is done, if one is. */
    Optional<Instant> doneAt() {
        return events == null ? Optional.empty() : Optional.of(doneAt);
    }

    /** Moves the clock to the probe's end if that is within {@code grace}, else by {@code grace}, as a step waits. */
    @Override
    public Optional<Done> awaitDone(Duration grace) {
        if (events == null) {
            return Optional.empty();
        }
        Duration left = Duration.between(clock.instant(), doneAt);
        if (left.compareTo(grace) > 0) {
            clock.advance(grace);
            return Optional.empty();
        }
        if (!left.isNegative() && !left.isZero()) {
            clock.advance(left);
        }
        return takeDone();
    }

    @Override
    public Optional<Done> takeDone() {
        if (events == null || done == null || clock.instant().isBefore(doneAt)) {
            return Optional.empty();
        }
        Done d = new Done(events, done);
        events = null;
        done = null;
        return Optional.of(d);
    }

    @Override
    public List<ClaimedEvent> close(Duration budget) {
        List<ClaimedEvent> left = events == null ? List.of() : events;
        events = null;
        done = null;
        return left;
    }
}
