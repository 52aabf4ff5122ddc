package org.edgebridge.broker;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The TLS listener: port ({@link BrokerSettings#ANY_PORT} for any free one), PEM files, and whether devices must
 * present a certificate.
 */
public record TlsSettings(int port, Path certFile, Path keyFile, Optional<Path> caFile, ClientAuth clientAuth) {
    public enum ClientAuth {
        NONE,
        OPTIONAL,
        REQUIRED
    }
}
