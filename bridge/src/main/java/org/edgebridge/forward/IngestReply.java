package org.edgebridge.forward;

import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What came back from one request: an HTTP status with its body, or a transport failure.
 *
 * @param status 0 for a transport failure (refused, reset, timeout)
 * @param retryAfter the raw {@code Retry-After} header, if any
 * @param location the raw {@code Location} header, if any (a 3xx)
 */
record IngestReply(
        int status,
        byte[] body,
        Optional<String> retryAfter,
        Optional<String> location,
        @Nullable String transportError) {
    static IngestReply transportFailure(String error) {
        return new IngestReply(0, new byte[0], Optional.empty(), Optional.empty(), error);
    }

    /** The exchange (connect, send, headers, body) did not finish within ingest.timeout. */
    static IngestReply timeout(long afterMs) {
        return transportFailure(TIMEOUT + afterMs
                + " ms (ingest.timeout): central took the request but did not finish its reply in time");
    }

    boolean timedOut() {
        return status == 0 && transportError != null && transportError.startsWith(TIMEOUT);
    }

    private static final String TIMEOUT = "timeout after ";
}
