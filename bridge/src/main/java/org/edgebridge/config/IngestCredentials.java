package org.edgebridge.config;

import static org.edgebridge.config.ConfigKeys.INGEST_CERT_EXPIRY_WARNING;
import static org.edgebridge.config.ConfigKeys.INGEST_CERT_FILE;
import static org.edgebridge.config.ConfigKeys.INGEST_KEY_FILE;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.edgebridge.forward.auth.ClientCertificate;
import org.edgebridge.forward.auth.ClientCertificateSettings;

/**
 * How the bridge proves who it is to central, checked as {@code check-config} and the start see it: the client
 * certificate ({@code ingest.certFile}/{@code ingest.keyFile}, read and checked here once so that a bad file stops the
 * start naming the key and the path).
 */
final class IngestCredentials {
    private IngestCredentials() {}

    /** Adds a problem for each key of the ingest credentials that cannot be used. */
    static void check(ConfigLoader.Values v, List<String> problems) {
        Optional<Path> cert = v.get(INGEST_CERT_FILE);
        Optional<Path> key = v.get(INGEST_KEY_FILE);
        if (cert.isPresent() != key.isPresent()) {
            problems.add(cert.isPresent()
                    ? "ingest.keyFile: must be set when ingest.certFile is set (the PEM PKCS#8 private key of the client certificate)"
                    : "ingest.certFile: must be set when ingest.keyFile is set (the PEM client certificate chain)");
            return;
        }
        if (cert.isPresent()) {
            try {
                ClientCertificate.load(cert.get(), key.get());
            } catch (IllegalArgumentException e) {
                problems.add(e.getMessage());
            }
        }
    }

    static Optional<ClientCertificateSettings> clientCertificate(ConfigLoader.Values v) {
        return v.get(INGEST_CERT_FILE).map(cert -> new ClientCertificateSettings(cert, v.get(INGEST_KEY_FILE).orElseThrow(),
                v.get(INGEST_CERT_EXPIRY_WARNING)));
    }
}
