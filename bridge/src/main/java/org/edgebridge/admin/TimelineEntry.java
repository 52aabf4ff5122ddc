package org.edgebridge.admin;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * One entry of a command's timeline (docs/desk.md, "A command's timeline"); a field that does not apply is left out.
 *
 * @param at when it happened (the first time, for an entry that happened {@code times} times)
 * @param what a stable code: {@code received}, {@code stored}, {@code attempt}, {@code retry_later},
 *     {@code failed_alone}, {@code released}, {@code parked}, {@code parked_by_admin}, {@code requeued},
 *     {@code expired}, {@code rejected_by_admin}, {@code final}, {@code receipt_published}, {@code receipt_acked}
 * @param detail what happened, in words
 * @param requestId the request to central ({@code batchId}, its {@code Idempotency-Key})
 * @param httpStatus central's HTTP status for it; 0 for none (no connection, a timeout)
 * @param tookMs how long that request took, from sending it to the end of its reply
 * @param times how many times it happened (only when more than once)
 * @param lastAt the last time (only when more than once); request, status and duration are the last time's
 * @param status a final's status: accepted, duplicate or rejected
 * @param code a final's or a park's code
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record TimelineEntry(
        Instant at,
        String what,
        String detail,
        @Nullable String requestId,
        @Nullable Integer httpStatus,
        @Nullable Long tookMs,
        @Nullable Integer times,
        @Nullable Instant lastAt,
        @Nullable String status,
        @Nullable String code) {

    /** An entry of the command's own (received, stored, receipt published ...): no request. */
    static TimelineEntry of(Instant at, String what, String detail) {
        return new TimelineEntry(at, what, detail, null, null, null, null, null, null, null);
    }
}
