package org.edgebridge.forward;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.edgebridge.forward.auth.ClientCertificateStatus;
import org.edgebridge.forward.auth.TokenStatus;

/**
 * The forwarder as an admin sees it.
 *
 * @param state one of {@code sending}, {@code idle}, {@code backing_off}, {@code breaker_open},
 *     {@code paused_by_admin}, {@code paused_by_central},
 *     {@code redirected_by_central} (a 3xx: ingest.url is wrong), {@code outbox_unwritable}, {@code stopped}
 * @param pauseReason why forwarding is paused by central's answer (401/403/4xx), if it is
 * @param unsettledEvents events central answered whose answer the outbox could not commit yet (a full or
 *     failing disk); they are committed before anything new is sent
 * @param failedSteps steps (claim, send, settle) that ended in an unexpected exception since start; each is tried
 *     again after 1 s
 * @param receiptViolations how often central broke the receipt contract since start, by kind, and the latest
 * @param cutReplies replies of central cut off since start: {@code deadline} (the exchange took longer than
 *     ingest.timeout), {@code too_large} (the body was longer than ingest.maxReplyBytes)
 * @param missingReceipts events central answered without a receipt for, since start (a contract violation; each
 *     counts toward parking the event with code {@code central_no_receipt})
 * @param lastMissingReceiptAt when central last left out a receipt
 * @param clientCertificate the client certificate presented to central ({@code ingest.certFile}), if one is set
 * @param oauth2 the token for central from the OAuth2 token endpoint ({@code ingest.oauth2.tokenUrl}), if one is set
 * @param serverErrors how often central fails requests that hold no suspect, and what that asks of a suspect
 */
public record ForwarderStatus(
        String state,
        String circuitBreaker,
        boolean pausedByAdmin,
        Optional<String> pauseReason,
        Optional<Instant> lastSuccessAt,
        Optional<String> lastError,
        Optional<Instant> lastErrorAt,
        Optional<Instant> nextAttemptAt,
        int consecutiveFailures,
        long requests,
        long eventsSent,
        long finals,
        long parked,
        int requestsPerSecond,
        int eventsPerSecond,
        int unsettledEvents,
        long failedSteps,
        ReceiptViolations.View receiptViolations,
        Map<String, Long> cutReplies,
        long missingReceipts,
        Optional<Instant> lastMissingReceiptAt,
        Optional<ClientCertificateStatus> clientCertificate,
        Optional<TokenStatus> oauth2,
        Expiry expiry,
        ServerErrors serverErrors) {

    /**
     * Commands that expired before they were sent (docs/protocol.md §1.4): made final here since start, told to
     * central, and refused by central as a report (it does not know the field: it sees a gap).
     */
    public record Expiry(long expired, long reportedToCentral, long reportsRefused) {}

    /**
     * The evidence against one event that makes central fail ({@code forwarder.maxServerErrors}).
     *
     * @param maxServerErrors {@code forwarder.maxServerErrors}
     * @param failedShare the share of the last requests without a suspect that central failed (smoothed: 0.05 with
     *     none), whatever their events
     * @param failuresToPark the failures alone in a row that park a suspect (or give up a report of expired commands)
     *     now: {@code maxServerErrors} while central fails at most one request in twenty, more while it fails more
     */
    public record ServerErrors(int maxServerErrors, double failedShare, int failuresToPark) {
        /** Central fails so often at random that it takes more than {@code maxServerErrors} to park an event. */
        public boolean raised() {
            return failuresToPark > maxServerErrors;
        }
    }
}
