package org.edgebridge.forward;

import java.util.Locale;

/** What the forwarder is doing, as {@code /api/status} names it ({@link ForwarderStatus#state()}). */
enum ForwarderState {
    IDLE,
    SENDING,
    /** Waiting out the backoff after a failed request, or central's Retry-After. */
    BACKING_OFF,
    /** The circuit breaker is open: nothing is claimed until it lets one probe through. */
    BREAKER_OPEN,
    PAUSED_BY_ADMIN,
    /** Central answered 401, 403 or another 4xx: a configuration or credential fault, tried again now and then. */
    PAUSED_BY_CENTRAL,
    /** Central answered a 3xx: ingest.url is wrong. */
    REDIRECTED_BY_CENTRAL,
    /** Central's answers could not be committed: nothing new is sent until they are. */
    OUTBOX_UNWRITABLE,
    STOPPED;

    /** The name on the status page: {@code backing_off}, {@code paused_by_central}, … */
    String statusName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
