package org.edgebridge.commission;

import java.net.Socket;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.Optional;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.edgebridge.forward.auth.ClientCertificate;
import org.edgebridge.forward.auth.TlsContexts;
import org.jspecify.annotations.Nullable;

/**
 * The forwarder's TLS context ({@code ingest.caFile}, {@code ingest.certFile}) with a witness of the handshake: whether
 * central's chain was checked and trusted (its name included), and whether central asked for a client certificate.
 * A server that refuses the client's certificate often just closes the connection (a broken pipe, a reset) instead
 * of a clear alert; what the witness saw tells that apart from a chain this box does not trust. One handshake.
 */
final class WatchedTls {
    private volatile boolean serverTrusted;
    private volatile boolean certificateAsked;
    private final SSLContext context;

    /** @throws IllegalStateException when ingest.caFile cannot be used as a trust store (the message names it) */
    WatchedTls(Optional<Path> caFile, Optional<ClientCertificate> certificate) {
        try {
            X509ExtendedTrustManager trust =
                    x509(caFile.isPresent() ? TlsContexts.trustManagers(caFile.get()) : jvmTrust());
            KeyManager[] keys = certificate.map(TlsContexts::keyManagers).orElse(new KeyManager[0]);
            X509ExtendedKeyManager key = keys.length > 0 && keys[0] instanceof X509ExtendedKeyManager k ? k : null;
            context = SSLContext.getInstance("TLS");
            context.init(
                    new KeyManager[] {new AskedKeyManager(key)}, new TrustManager[] {new TrustWitness(trust)}, null);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot make the TLS context for central: " + e.getMessage(), e);
        }
    }

    SSLContext context() {
        return context;
    }

    /** Central's chain was checked and trusted, its name matched. */
    boolean serverTrusted() {
        return serverTrusted;
    }

    /** Central asked this box for a client certificate. */
    boolean certificateAsked() {
        return certificateAsked;
    }

    private static TrustManager[] jvmTrust() throws GeneralSecurityException {
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init((KeyStore) null);
        return tmf.getTrustManagers();
    }

    private static X509ExtendedTrustManager x509(TrustManager[] managers) {
        for (TrustManager m : managers) {
            if (m instanceof X509ExtendedTrustManager x) {
                return x;
            }
        }
        throw new IllegalStateException("no X.509 trust manager");
    }

    private final class TrustWitness extends X509ExtendedTrustManager {
        private final X509ExtendedTrustManager delegate;

        TrustWitness(X509ExtendedTrustManager delegate) {
            this.delegate = delegate;
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            delegate.checkServerTrusted(chain, authType, socket);
            serverTrusted = true;
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            delegate.checkServerTrusted(chain, authType, engine);
            serverTrusted = true;
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            delegate.checkServerTrusted(chain, authType);
            serverTrusted = true;
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            delegate.checkClientTrusted(chain, authType, socket);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            delegate.checkClientTrusted(chain, authType, engine);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            delegate.checkClientTrusted(chain, authType);
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return delegate.getAcceptedIssuers();
        }
    }

    /** Presents the client certificate, if there is one, and notes that central asked for one. */
    private final class AskedKeyManager extends X509ExtendedKeyManager {
        private final @Nullable X509ExtendedKeyManager delegate;

        AskedKeyManager(@Nullable X509ExtendedKeyManager delegate) {
            this.delegate = delegate;
        }

        @Override
        public @Nullable String chooseClientAlias(
                String[] keyType, Principal @Nullable [] issuers, @Nullable Socket socket) {
            certificateAsked = true;
            return delegate == null ? null : delegate.chooseClientAlias(keyType, issuers, socket);
        }

        @Override
        public @Nullable String chooseEngineClientAlias(
                String[] keyType, Principal @Nullable [] issuers, @Nullable SSLEngine engine) {
            certificateAsked = true;
            return delegate == null ? null : delegate.chooseEngineClientAlias(keyType, issuers, engine);
        }

        @Override
        public String @Nullable [] getClientAliases(String keyType, Principal @Nullable [] issuers) {
            return delegate == null ? null : delegate.getClientAliases(keyType, issuers);
        }

        @Override
        public String @Nullable [] getServerAliases(String keyType, Principal @Nullable [] issuers) {
            return null;
        }

        @Override
        public @Nullable String chooseServerAlias(
                String keyType, Principal @Nullable [] issuers, @Nullable Socket socket) {
            return null;
        }

        @Override
        public X509Certificate @Nullable [] getCertificateChain(String alias) {
            return delegate == null ? null : delegate.getCertificateChain(alias);
        }

        @Override
        public @Nullable PrivateKey getPrivateKey(String alias) {
            return delegate == null ? null : delegate.getPrivateKey(alias);
        }
    }
}
