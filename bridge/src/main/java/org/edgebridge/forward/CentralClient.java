package org.edgebridge.forward;

import java.util.Map;
import java.util.Optional;
import org.edgebridge.forward.auth.ClientCertificateFiles;
import org.edgebridge.worker.Workers;

/**
 * The {@link IngestPort} of a site: HTTP/1.1 to {@code ingest.url}, by the client {@code ingest.client} names. Both
 * bound the whole exchange by {@code ingest.timeout} and the reply by {@code ingest.maxReplyBytes}, go through
 * {@code ingest.proxy}, present the client certificate as it is on disk now, never follow a redirect nor send a POST
 * twice, and count the bytes they exchange. Thread-safe.
 */
interface CentralClient extends IngestPort, AutoCloseable {
    static CentralClient of(
            ForwarderSettings settings, Optional<ClientCertificateFiles> certificates, Workers workers) {
        return switch (settings.central().client()) {
            case JDK -> new IngestClient(settings, certificates);
            case BLOCKING -> new BlockingIngestClient(settings, certificates, workers);
        };
    }

    /** The bytes exchanged with central since start (the data budget's source). */
    WireBytes wire();

    /** Replies cut off since start ({@link CutReplies#counts()}). */
    Map<String, Long> cutReplies();

    /** Stops what the client runs of its own (a thread); an exchange under way is not waited for. */
    @Override
    void close();
}
