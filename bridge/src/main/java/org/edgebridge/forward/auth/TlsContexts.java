package org.edgebridge.forward.auth;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Optional;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/** The TLS context of the connections to central: whom to trust ({@code ingest.caFile}) and what to present. */
public final class TlsContexts {
    private static final char[] IN_MEMORY = new char[0];

    private TlsContexts() {}

    /**
     * @param caFile CA certificates (PEM) to trust instead of the JVM's trust store, if set
     * @param certificate the client certificate to present when the server asks for one, if any
     */
    public static SSLContext of(Optional<Path> caFile, Optional<ClientCertificate> certificate) {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(
                    certificate.map(TlsContexts::keyManagers).orElse(null),
                    caFile.map(TlsContexts::trustManagers).orElse(null),
                    null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot make the TLS context for central: " + e.getMessage(), e);
        }
    }

    /** Key managers that present {@code certificate} (for a check that watches the handshake: commission). */
    public static KeyManager[] keyManagers(ClientCertificate certificate) {
        try {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry(
                    "client", certificate.key(), IN_MEMORY, certificate.chain().toArray(Certificate[]::new));
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, IN_MEMORY);
            return kmf.getKeyManagers();
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException(
                    "ingest.certFile: cannot be used as a client certificate: " + e.getMessage(), e);
        }
    }

    /** Trust managers that trust exactly the CA certificates in a PEM file. */
    public static TrustManager[] trustManagers(Path caFile) {
        try (InputStream in = Files.newInputStream(caFile)) {
            KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
            trust.load(null, null);
            int i = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                trust.setCertificateEntry("ca-" + i++, c);
            }
            if (i == 0) {
                throw new IllegalStateException("ingest.caFile=" + caFile + ": no certificate in it");
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            return tmf.getTrustManagers();
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException(
                    "ingest.caFile=" + caFile + ": cannot be used as a trust store: " + e.getMessage(), e);
        }
    }
}
