package org.edgebridge.forward;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.edgebridge.forward.auth.ClientCertificateSettings;
import org.edgebridge.forward.auth.OAuth2Settings;
import org.edgebridge.unit.DataSize;

/**
 * How the bridge sends its outbox to central (docs/protocol.md §2), by concern. No two neighbouring components of
 * these records have one type, or a check in the record catches them swapped.
 */
public record ForwarderSettings(
        Central central,
        Credentials credentials,
        Batching batching,
        Requests requests,
        Retries retries,
        Breaker breaker) {

    /**
     * Where central is and how bodies go there.
     *
     * @param proxy the site's HTTP proxy ({@code ingest.proxy}), or empty for a direct connection
     * @param compression how request bodies go on the wire ({@code ingest.compression}); maxBytes bounds them before it
     * @param client which HTTP client carries the requests ({@code ingest.client})
     */
    public record Central(
            String edgeId, URI url, Optional<URI> proxy, Compression compression, IngestClientKind client) {}

    /**
     * What the bridge shows central.
     *
     * @param token the fixed bearer token ({@code ingest.token}); empty with {@code oauth2}
     * @param caFile the CA central's certificate is checked against ({@code ingest.caFile}); empty: the JDK's
     * @param clientCertificate the client certificate presented to central ({@code ingest.certFile}), if any
     * @param oauth2 the OAuth2 client credentials grant that gets the bearer token ({@code ingest.oauth2.*}), if set
     */
    public record Credentials(
            Optional<String> token,
            Optional<Path> caFile,
            Optional<ClientCertificateSettings> clientCertificate,
            Optional<OAuth2Settings> oauth2) {}

    /**
     * What goes in one request.
     *
     * @param maxBytes the largest body as serialized, before compression (a larger event still goes, alone)
     * @param linger how long a part-filled batch waits for more events
     * @param eventsPerSecond the events rate limit ({@code forwarder.eventsPerSecond})
     */
    public record Batching(int maxEvents, DataSize maxBytes, Duration linger, int eventsPerSecond) {
        /** Events in one request: never more than the events rate allows in one second. */
        public int limit() {
            return Math.min(maxEvents, eventsPerSecond);
        }
    }

    /**
     * How requests go.
     *
     * @param maxConcurrent requests under way at once
     * @param timeout the deadline of one whole exchange with central: connect, send, headers and body
     * @param perSecond the requests rate limit
     * @param maxReplyBytes the longest reply body read from central; a longer one fails the request
     * @param receiptCaps the largest result, message and code of a receipt that is believed
     */
    public record Requests(
            int maxConcurrent, Duration timeout, int perSecond, DataSize maxReplyBytes, ReceiptCaps receiptCaps) {
        /** The longest wait for a connection: {@code timeout}, at most 10 s. */
        public Duration connectTimeout() {
            return timeout.compareTo(Duration.ofSeconds(10)) < 0 ? timeout : Duration.ofSeconds(10);
        }
    }

    /**
     * When a failed or refused event or request goes again, and when an event is parked.
     *
     * @param maxAttempts retry_later answers before an event is parked
     * @param maxRetryAfter the longest wait central can impose (Retry-After, retryAfterMs); longer ones are clamped
     * @param maxServerErrors failures of central on one event alone before it is parked
     * @param authRetryInterval how often a bridge refused by central (401, 404, …) tries again
     */
    public record Retries(
            int maxAttempts,
            Backoff backoff,
            Duration maxRetryAfter,
            int maxServerErrors,
            Duration authRetryInterval) {}

    /** Exponential backoff from {@code initial} up to {@code max} (swapped, they fail here). */
    public record Backoff(Duration initial, Duration max) {
        public Backoff {
            if (max.compareTo(initial) < 0) {
                throw new IllegalArgumentException("backoff max " + max + " is shorter than its initial " + initial);
            }
        }
    }

    /**
     * The circuit breaker.
     *
     * @param failureRate percent of failed requests that opens it
     * @param openFor how long it stays open before a probe
     */
    public record Breaker(int failureRate, Duration openFor) {}
}
