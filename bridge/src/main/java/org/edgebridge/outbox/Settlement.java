package org.edgebridge.outbox;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/** How one claimed event ends after a request to central. Applied by {@link Outbox#settle}. */
public sealed interface Settlement {
    long id();

    /** Central's final answer: accepted, duplicate or rejected. */
    record Final(
            long id,
            CommandState status,
            @Nullable String code,
            @Nullable String message,
            @Nullable String resultJson) implements Settlement {
        public Final {
            if (!status.isFinal()) {
                throw new IllegalArgumentException("not a final state: " + status);
            }
        }
    }

    /**
     * Central said retry_later for this event (counts toward parking), or the event was not answered.
     *
     * @param countsTowardParking true only for central's own per-event retry_later
     */
    record RetryLater(long id, Instant notBefore, String reason, boolean countsTowardParking) implements Settlement {}

    /**
     * Central failed on this event alone (a 5xx, a dropped connection or a timeout with proof that it answers other
     * events), or answered without its receipt: pending again not before {@code notBefore}, and one more in
     * {@code commands.central_failures}. The forwarder sends a {@link Park} instead at {@code
     * forwarder.maxServerErrors}.
     */
    record FailedAlone(long id, Instant notBefore, String reason) implements Settlement {}

    /** Parked with a code of its own (e.g. an event that alone makes central fail): only an admin moves it on. */
    record Park(long id, @Nullable String code, String reason) implements Settlement {}

    /**
     * Nothing is known about the event (transport failure, 429, pause): back to pending as it was.
     *
     * @param sent false only when the event provably did not reach central with this claim (refused connection,
     *     circuit breaker open, no token, held back from its request): it then still counts as never seen by central
     *     and may expire here (docs/protocol.md §1.4)
     */
    record Release(long id, String reason, boolean sent) implements Settlement {
        /** A release of an event that may have reached central. */
        public Release(long id, String reason) {
            this(id, reason, true);
        }
    }
}
