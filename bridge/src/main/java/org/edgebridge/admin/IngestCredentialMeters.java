package org.edgebridge.admin;

import static org.edgebridge.admin.Counters.counter;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.edgebridge.forward.ForwarderControl;

/**
 * The meters of the forwarder's credentials for central ({@code edgebridge_ingest_*}): the client certificate's expiry
 * and reloads, the OAuth2 token endpoint's requests, failures and renewals; each only when configured.
 */
final class IngestCredentialMeters {
    private IngestCredentialMeters() {}

    static void register(PrometheusMeterRegistry registry, ForwarderControl forwarder) {
        if (forwarder.status().clientCertificate().isPresent()) {
            Gauge.builder(
                            "edgebridge.ingest.client.certificate.expiry.timestamp",
                            forwarder,
                            f -> f.status()
                                    .clientCertificate()
                                    .map(c -> c.notAfter().getEpochSecond())
                                    .orElse(0L))
                    .baseUnit("seconds")
                    .description("when the client certificate presented to central (ingest.certFile) "
                            + "expires, in Unix seconds (alarm ingest_certificate_expiring before, "
                            + "ingest_certificate_expired after)")
                    .register(registry);
            counter(
                    registry,
                    "edgebridge.ingest.client.certificate.reloads",
                    forwarder,
                    f -> f.status().clientCertificate().map(c -> c.reloads()).orElse(0L),
                    "changed client certificate files taken into use since start");
        }
        if (forwarder.status().oauth2().isPresent()) {
            counter(
                    registry,
                    "edgebridge.ingest.token.requests",
                    forwarder,
                    f -> f.status().oauth2().map(t -> t.requests()).orElse(0L),
                    "requests to the OAuth2 token endpoint (ingest.oauth2.tokenUrl) since start");
            counter(
                    registry,
                    "edgebridge.ingest.token.failures",
                    forwarder,
                    f -> f.status().oauth2().map(t -> t.failures()).orElse(0L),
                    "requests to the OAuth2 token endpoint that got no token (alarm ingest_token_endpoint_failing)");
            counter(
                    registry,
                    "edgebridge.ingest.token.renewals.after.401",
                    forwarder,
                    f -> f.status().oauth2().map(t -> t.refreshedAfter401()).orElse(0L),
                    "tokens dropped because central answered 401 to them (the request was sent once more with a new "
                            + "one)");
        }
    }
}
