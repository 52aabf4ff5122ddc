package org.edgebridge.forward.auth;

/**
 * No bearer token could be had from the token endpoint: it is down, refuses the client, or answers nonsense. Not
 * central's fault: nothing is sent to central, its circuit breaker and the events' counts are not touched.
 */
public final class TokenUnavailable extends RuntimeException {
    private final int failuresInARow;

    TokenUnavailable(String reason, int failuresInARow) {
        super(reason, null, false, false);
        this.failuresInARow = failuresInARow;
    }

    /** Token requests that failed in a row, this one included: the backoff grows with it. */
    public int failuresInARow() {
        return failuresInARow;
    }
}
