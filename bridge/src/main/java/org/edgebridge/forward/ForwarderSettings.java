package org.edgebridge.forward;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;

/**
 * How the bridge sends its outbox to central (docs/protocol.md §2).
 *
 * @param maxRetryAfter the longest wait central can impose (Retry-After, retryAfterMs); longer ones are clamped
 * @param maxServerErrors rounds in which one event alone made central answer 5xx before it is parked
 * @param timeout the deadline of one whole exchange with central: connect, send, headers and body
 * @param maxReplyBytes the longest reply body read from central; a longer one fails the request
 * @param receiptCaps the largest result, message and code of a receipt that is believed
 * @param proxy the site's HTTP proxy ({@code ingest.proxy}), or empty for a direct connection
 * @param compression how request bodies go on the wire ({@code ingest.compression}); maxBytes bounds them before it
 * @param clientCertificate the client certificate presented to central ({@code ingest.certFile}), if any
 * @param oauth2 the OAuth2 client credentials grant that gets the bearer token ({@code ingest.oauth2.*}), if set;
 *     then {@code token} is empty
 */
public record ForwarderSettings(
        String edgeId,
        URI url,
        Optional<String> token,
        Optional<java.nio.file.Path> caFile,
        Duration timeout,
        int maxEvents,
        int maxBytes,
        Duration linger,
        int requestsPerSecond,
        int eventsPerSecond,
        int maxConcurrentRequests,
        int maxAttempts,
        Duration backoffInitial,
        Duration backoffMax,
        Duration authRetryInterval,
        int breakerFailureRate,
        Duration breakerOpenFor,
        Duration maxRetryAfter,
        int maxServerErrors,
        int maxReplyBytes,
        ReceiptCaps receiptCaps,
        Optional<URI> proxy,
        Compression compression,
        Optional<org.edgebridge.forward.auth.ClientCertificateSettings> clientCertificate,
        Optional<org.edgebridge.forward.auth.OAuth2Settings> oauth2) {

    /** Events in one request: never more than the events rate allows in one second. */
    public int batchLimit() {
        return Math.min(maxEvents, eventsPerSecond);
    }
}
