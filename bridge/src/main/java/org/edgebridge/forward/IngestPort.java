package org.edgebridge.forward;

import java.util.Optional;

/**
 * The one way a request reaches central: a {@link CentralClient} over HTTP on a site, a scripted central in the blame
 * simulation. Implementations bound the whole exchange by {@code ingest.timeout} and never throw for what central or
 * the network does (a transport failure is an {@link IngestReply} with status 0).
 */
@FunctionalInterface
interface IngestPort {
    IngestReply post(String batchId, byte[] body, Optional<String> bearer);
}
