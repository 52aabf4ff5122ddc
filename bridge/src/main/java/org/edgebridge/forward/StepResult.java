package org.edgebridge.forward;

import java.time.Duration;

/** What one forwarder step did, and how long the loop waits before the next one ({@link ForwarderLoop}). */
sealed interface StepResult {
    /** How long to wait before the next step. */
    Duration waitFor();

    /** Whether {@link Forwarder#wake()} ends that wait early: only when the step found nothing to do. */
    default boolean endsOnWake() {
        return false;
    }

    /**
     * Nothing was claimed: nothing due ({@link ForwarderState#IDLE}), paused by an admin, or every request slot busy
     * ({@link ForwarderState#SENDING}).
     */
    record Idle(ForwarderState state, Duration waitFor) implements StepResult {
        @Override
        public boolean endsOnWake() {
            return true;
        }
    }

    /**
     * Not sent: the policy holds requests back (backing off, paused by central, breaker open) or the outbox is
     * unwritable.
     */
    record Held(ForwarderState state, Duration waitFor) implements StepResult {}

    /** A batch of {@code events} was claimed, sent and settled; the next step follows after {@code waitFor}. */
    record Sent(int events, Duration waitFor) implements StepResult {}

    /** The step ended in an unexpected exception (its claim was released); tried again after a while. */
    record Failed(String failure, Duration waitFor) implements StepResult {}
}
