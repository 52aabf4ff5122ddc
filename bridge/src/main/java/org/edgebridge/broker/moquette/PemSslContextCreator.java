package org.edgebridge.broker.moquette;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import javax.net.ssl.SSLException;
import org.edgebridge.broker.TlsSettings;

/**
 * Moquette 0.17 limit answered: a TLS misconfiguration makes it start silently without its TLS listener, and its
 * own context creator reads only key stores; the bridge builds the context from PEM files before anything listens,
 * so a bad file stops start-up with the key named. Proven by {@code SecurityIT}.
 *
 * <p>Builds the TLS listener's context from PEM files: TLS 1.3 and 1.2 only, the JDK's default (modern) cipher
 * suites, and client certificates checked against {@code tls.caFile} when asked for. Built before anything
 * listens, so that a bad file stops start-up with a message naming the key.
 */
final class PemSslContextCreator {
    private final TlsSettings tls;

    PemSslContextCreator(TlsSettings tls) {
        this.tls = tls;
    }

    /** Builds the context now, so that bad files stop start-up with a clear message. */
    SslContext build() {
        try {
            SslContextBuilder builder = SslContextBuilder.forServer(
                            tls.certFile().toFile(), tls.keyFile().toFile())
                    .sslProvider(SslProvider.JDK)
                    .protocols("TLSv1.3", "TLSv1.2");
            tls.caFile().ifPresent(ca -> builder.trustManager(ca.toFile()));
            builder.clientAuth(
                    switch (tls.clientAuth()) {
                        case NONE -> ClientAuth.NONE;
                        case OPTIONAL -> ClientAuth.OPTIONAL;
                        case REQUIRED -> ClientAuth.REQUIRE;
                    });
            return builder.build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalStateException(
                    "tls.certFile=" + tls.certFile() + ", tls.keyFile=" + tls.keyFile()
                            + ": cannot build the TLS listener: " + e.getMessage()
                            + " (the certificate must be PEM, the key PEM PKCS#8 or PKCS#1, and match each other)",
                    e);
        }
    }
}
