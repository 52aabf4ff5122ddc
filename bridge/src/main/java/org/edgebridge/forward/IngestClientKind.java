package org.edgebridge.forward;

/**
 * Which HTTP client carries the requests to central ({@code ingest.client}); both keep the same guarantees
 * (docs/forwarding.md, "Bounds on central's replies").
 */
public enum IngestClientKind {
    /** The JDK's {@code java.net.http.HttpClient}: its own selector and worker threads ({@link IngestClient}). */
    JDK,
    /** {@code HttpURLConnection} on the calling (forwarder) thread ({@link BlockingIngestClient}). */
    BLOCKING
}
