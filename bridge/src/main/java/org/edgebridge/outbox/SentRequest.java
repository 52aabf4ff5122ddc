package org.edgebridge.outbox;

import org.jspecify.annotations.Nullable;

/**
 * One request to central that carried claimed events, as a settle records it for their timeline (docs/desk.md, "A
 * command's timeline").
 *
 * @param batchId the request's id (its {@code batchId} and {@code Idempotency-Key}, docs/protocol.md §2)
 * @param httpStatus central's HTTP status; 0 when there was none (no connection, a timeout, a reply cut off, not sent)
 * @param tookMs how long the request took, from sending it to the end of its reply; -1 when that is not known (not
 *     sent, or an answer kept from before a restart of the settle)
 */
public record SentRequest(String batchId, int httpStatus, long tookMs) {
    /** A request of which only the id is known. */
    public static SentRequest unmeasured(String batchId) {
        return new SentRequest(batchId, 0, -1);
    }

    /** The HTTP status to record: 0 for none of a request that went out, null when nothing is known. */
    @Nullable
    Integer statusOrNull() {
        return tookMs >= 0 || httpStatus > 0 ? httpStatus : null;
    }

    /** The duration to record: null when not known. */
    @Nullable
    Long tookOrNull() {
        return tookMs >= 0 ? tookMs : null;
    }
}
