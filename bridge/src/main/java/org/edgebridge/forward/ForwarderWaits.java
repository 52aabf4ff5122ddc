package org.edgebridge.forward;

import java.time.Duration;

/**
 * The forwarder's fixed waits, in one place (the linger is a setting: {@code forwarder.linger}). The waits that
 * depend on central (backoff, Retry-After, pauses) are decided by {@link ForwarderPolicy}.
 */
final class ForwarderWaits {
    /** Nothing to send, paused by an admin, or every request slot busy: look again after this, or on a wake-up. */
    static final Duration IDLE_POLL = Duration.ofMillis(500);
    /** The circuit breaker is open or half-open: look again after this (or when it may half-open, if sooner). */
    static final Duration BREAKER_POLL = Duration.ofMillis(250);
    /** A step that ended in an unexpected exception is tried again after this. */
    static final Duration AFTER_FAILED_STEP = Duration.ofSeconds(1);
    /** Central's answers are kept because the outbox cannot commit them: try again after this. */
    static final Duration OUTBOX_UNWRITABLE_RETRY = Duration.ofSeconds(1);

    private ForwarderWaits() {}
}
