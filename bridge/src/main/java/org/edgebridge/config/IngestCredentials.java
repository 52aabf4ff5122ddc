package org.edgebridge.config;

import static org.edgebridge.config.IngestKeys.INGEST_CERT_EXPIRY_WARNING;
import static org.edgebridge.config.IngestKeys.INGEST_CERT_FILE;
import static org.edgebridge.config.IngestKeys.INGEST_KEY_FILE;
import static org.edgebridge.config.IngestKeys.INGEST_OAUTH2_AUDIENCE;
import static org.edgebridge.config.IngestKeys.INGEST_OAUTH2_CLIENT_AUTH;
import static org.edgebridge.config.IngestKeys.INGEST_OAUTH2_CLIENT_ID;
import static org.edgebridge.config.IngestKeys.INGEST_OAUTH2_CLIENT_SECRET_FILE;
import static org.edgebridge.config.IngestKeys.INGEST_OAUTH2_SCOPE;
import static org.edgebridge.config.IngestKeys.INGEST_OAUTH2_TOKEN_URL;
import static org.edgebridge.config.IngestKeys.INGEST_TOKEN;
import static org.edgebridge.config.IngestKeys.INGEST_TOKEN_FILE;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.edgebridge.forward.auth.ClientCertificate;
import org.edgebridge.forward.auth.ClientCertificateSettings;
import org.edgebridge.forward.auth.OAuth2Settings;
import org.edgebridge.forward.auth.SecretFile;

/**
 * How the bridge proves who it is to central, checked as {@code check-config} and the start see it: the client
 * certificate ({@code ingest.certFile}/{@code ingest.keyFile}, read and checked here once so that a bad file stops the
 * start naming the key and the path), and the OAuth2 client credentials ({@code ingest.oauth2.*}: the secret's file
 * read here once for the same reason, and again at each token request).
 */
final class IngestCredentials {
    private IngestCredentials() {}

    /** Adds a problem for each key of the ingest credentials that cannot be used. */
    static void check(ConfigLoader.Values v, List<String> problems) {
        checkOAuth2(v, problems);
        Optional<Path> cert = v.get(INGEST_CERT_FILE);
        Optional<Path> key = v.get(INGEST_KEY_FILE);
        if (cert.isPresent() != key.isPresent()) {
            problems.add(
                    cert.isPresent()
                            ? "ingest.keyFile: must be set when ingest.certFile is set (the PEM PKCS#8 private key "
                                    + "of the client certificate)"
                            : "ingest.certFile: must be set when ingest.keyFile is set (the PEM client certificate "
                                    + "chain)");
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

    /** The OAuth2 keys: all that a token request needs, none without the token URL, no fixed token beside them. */
    private static void checkOAuth2(ConfigLoader.Values v, List<String> problems) {
        boolean on = v.get(INGEST_OAUTH2_TOKEN_URL).isPresent();
        if (!on) {
            for (ConfigKey<?> k : List.of(
                    INGEST_OAUTH2_CLIENT_ID,
                    INGEST_OAUTH2_CLIENT_SECRET_FILE,
                    INGEST_OAUTH2_SCOPE,
                    INGEST_OAUTH2_AUDIENCE)) {
                if (v.text(k) != null) {
                    problems.add("ingest.oauth2.tokenUrl: must be set when " + k.name()
                            + " is set (the OAuth2 token endpoint)");
                }
            }
            return;
        }
        for (ConfigKey<?> fixed : List.of(INGEST_TOKEN, INGEST_TOKEN_FILE)) {
            if (v.text(fixed) != null) {
                problems.add(
                        "ingest.oauth2.tokenUrl and " + fixed.name() + ": both are set; keep one (with ingest.oauth2.* "
                                + "the bearer token comes from the token endpoint)");
            }
        }
        if (v.get(INGEST_OAUTH2_CLIENT_ID).isEmpty()) {
            problems.add(
                    "ingest.oauth2.clientId: must be set when ingest.oauth2.tokenUrl is set (the bridge's client id "
                            + "there)");
        }
        Optional<Path> secret = v.get(INGEST_OAUTH2_CLIENT_SECRET_FILE);
        if (secret.isEmpty()) {
            problems.add(
                    "ingest.oauth2.clientSecretFile: must be set when ingest.oauth2.tokenUrl is set (an owner-only "
                            + "file holding the client secret; the secret itself is never in the YAML)");
            return;
        }
        try {
            SecretFile.readOwnerOnly(secret.get());
        } catch (IllegalArgumentException e) {
            problems.add("ingest.oauth2.clientSecretFile=" + secret.get() + ": " + e.getMessage());
        }
    }

    static Optional<OAuth2Settings> oauth2(ConfigLoader.Values v) {
        return v.get(INGEST_OAUTH2_TOKEN_URL)
                .map(url -> new OAuth2Settings(
                        url,
                        v.get(INGEST_OAUTH2_CLIENT_ID).orElseThrow(),
                        v.get(INGEST_OAUTH2_CLIENT_SECRET_FILE).orElseThrow(),
                        v.get(INGEST_OAUTH2_SCOPE),
                        v.get(INGEST_OAUTH2_AUDIENCE),
                        v.get(INGEST_OAUTH2_CLIENT_AUTH)));
    }

    static Optional<ClientCertificateSettings> clientCertificate(ConfigLoader.Values v) {
        return v.get(INGEST_CERT_FILE)
                .map(cert -> new ClientCertificateSettings(
                        cert, v.get(INGEST_KEY_FILE).orElseThrow(), v.get(INGEST_CERT_EXPIRY_WARNING)));
    }
}
