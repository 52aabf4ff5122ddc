package org.edgebridge.forward;

import java.time.Duration;
import java.util.List;
import org.edgebridge.code.ReceiptCode;
import org.edgebridge.outbox.Settlement;
import org.jspecify.annotations.Nullable;

/** What one request to central means for its events and for the forwarder (docs/protocol.md §2.3). */
sealed interface RequestOutcome {

    /**
     * 200 with receipts: one settlement per event; {@code problems} are the receipts central got wrong
     * ({@link ReceiptCheck}): their events are settled as if they had no receipt.
     */
    record Answered(List<Settlement> settlements, List<ReceiptCheck.Problem> problems) implements RequestOutcome {
        /**
         * Whether central gave at least one event a final receipt: it processes events now. A reply of nothing but
         * {@code retry_later} is central shedding load: no proof that it answers others (docs/forwarding.md, "Blame").
         */
        boolean answersEvents() {
            return settlements.stream().anyMatch(s -> s instanceof Settlement.Final);
        }

        /** Problems of this kind. */
        long count(ReceiptCheck.Violation kind) {
            return problems.stream().filter(p -> p.kind() == kind).count();
        }
    }

    /** 429: central says the bridge sends too fast; nothing is final; wait before the next request. */
    record Throttled(Duration retryAfter, String reason) implements RequestOutcome {}

    /**
     * A 5xx (503 included), timeout, refused or reset connection, another 4xx: retry with backoff, or find the one
     * event behind it.
     *
     * @param cause what failed; all but {@link Cause#UNREACHABLE} may be caused by one event of the batch
     * @param retryAfter central's Retry-After (clamped), or zero: the backoff after it is never shorter
     * @param problems for a 2xx without one believable receipt ({@link Cause#NO_RECEIPTS}): what was wrong with each
     *     receipt it had ({@link ReceiptCheck}); empty when it had none
     */
    record Failed(String reason, Cause cause, Duration retryAfter, List<ReceiptCheck.Problem> problems)
            implements RequestOutcome {
        Failed(String reason, Cause cause) {
            this(reason, cause, Duration.ZERO);
        }

        Failed(String reason, Cause cause, Duration retryAfter) {
            this(reason, cause, retryAfter, List.of());
        }

        /** An event of the batch may cause it (as opposed to central or the network being down). */
        boolean mayBeOneEvent() {
            return cause != Cause.UNREACHABLE;
        }

        /** Central answered with an HTTP status (as opposed to a timeout or a broken connection). */
        boolean answeredWithStatus() {
            return cause != Cause.UNREACHABLE && cause != Cause.TIMED_OUT && cause != Cause.DROPPED;
        }

        /**
         * The code an event is parked with when this failure follows it alone (docs/protocol.md §2.3); null for
         * {@link Cause#UNREACHABLE}.
         */
        @Nullable
        String parkCode() {
            return cause.parkCode == null ? null : cause.parkCode.wire();
        }
    }

    /** Why a request failed (docs/forwarding.md, "Replies"). */
    enum Cause {
        /** No connection: refused, DNS, TLS, connect timeout. Central's or the network's, never one event's. */
        UNREACHABLE(null),
        /** An HTTP 5xx other than 503. */
        SERVER_ERROR(ReceiptCode.INGEST_SERVER_ERROR),
        /**
         * 503: central says it cannot serve now. Mostly all of central (its Retry-After is waited), but a gateway in
         * front of a central that dies on one event answers 503 too: hunted like a 5xx, so that one event cannot hold a
         * site (or open its circuit breaker) for ever.
         */
        UNAVAILABLE(ReceiptCode.INGEST_UNAVAILABLE),
        /** No whole reply within ingest.timeout. */
        TIMED_OUT(ReceiptCode.INGEST_TIMEOUT),
        /**
         * The connection was made, then reset or closed before a reply (a parser of central's that dies on one event).
         */
        DROPPED(ReceiptCode.INGEST_CONNECTION_DROPPED),
        /**
         * A 4xx that is neither about the request's size or shape (400, 413, 422) nor about the bridge's credentials or
         * URL (401, 403, 404, 405, 407, 410), such as 409 or 415: it may follow one event like a 5xx.
         */
        REFUSED(ReceiptCode.INGEST_REFUSED),
        /**
         * A 2xx that answers no event of the request: no receipts array (an error or maintenance page served as 200,
         * a 204, {@code {}}) or an array without a receipt for any of them. Central's or a gateway's fault as often as
         * one event's: hunted like a 5xx, so that neither a central that answers so for a while parks the backlog
         * nor one poison event answered so holds a site.
         */
        NO_RECEIPTS(ReceiptCode.CENTRAL_NO_RECEIPT),
        /**
         * 403: mostly the bridge's credentials (the forwarder pauses, as for a 401), but a web application firewall
         * in front of central answers 403 to one event whose payload it dislikes: hunted like a 5xx first, and only
         * when no other event gets through is it central refusing the bridge (paused, alarm central_refused).
         */
        FORBIDDEN(ReceiptCode.INGEST_FORBIDDEN),
        /**
         * 400 or 422: central (or a gateway, or a TLS port spoken to in plain HTTP) calls the request malformed. One
         * event's doing only with proof; then, at the limit, that event is finally rejected with this code.
         */
        BAD_REQUEST(ReceiptCode.INGEST_BAD_REQUEST),
        /**
         * 413: the request is too large for central or a proxy; with proof, one event is finally rejected at the limit.
         */
        TOO_LARGE(ReceiptCode.INGEST_PAYLOAD_TOO_LARGE);

        private final @Nullable ReceiptCode parkCode;

        Cause(@Nullable ReceiptCode parkCode) {
            this.parkCode = parkCode;
        }

        /** At the limit of proven failures the event is finally rejected (the request's shape), not parked. */
        boolean rejectsAtLimit() {
            return this == BAD_REQUEST || this == TOO_LARGE;
        }
    }

    /**
     * 401, 403, 404, 405, 407 or 410, or a 3xx: a configuration or credential fault; pause forwarding.
     *
     * @param redirect true for a 3xx (ingest.url points at something that moved: its own alarm)
     */
    record Refused(String reason, boolean redirect) implements RequestOutcome {}

    /**
     * Not sent: the OAuth2 token endpoint gave no token ({@code ingest.oauth2.tokenUrl}). Not central's fault: its
     * circuit breaker records nothing and the events' counts stay; the forwarder backs off.
     *
     * @param failuresInARow token requests that failed in a row (the backoff grows with it)
     */
    record NoToken(String reason, int failuresInARow) implements RequestOutcome {}

    /** Not sent: the circuit breaker did not permit the call (open, or its half-open probe is taken). */
    record NotPermitted(String reason) implements RequestOutcome {}
}
