package org.edgebridge.config;

import static org.edgebridge.config.ConfigKey.durationKey;
import static org.edgebridge.config.ConfigKey.enumKey;
import static org.edgebridge.config.ConfigKey.httpUrlKey;
import static org.edgebridge.config.ConfigKey.intSizeKey;
import static org.edgebridge.config.ConfigKey.optionalPathKey;
import static org.edgebridge.config.ConfigKey.optionalTextKey;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.edgebridge.forward.Compression;
import org.edgebridge.forward.IngestClientKind;
import org.edgebridge.forward.auth.OAuth2Settings;

/**
 * The keys of the way to central ({@code ingest.*}): its URL, credentials (token, client certificate, OAuth2), the
 * site's proxy, compression and the bounds on what central answers. Part of {@link ConfigKeys#ALL}.
 */
public final class IngestKeys {
    public static final ConfigKey<URI> INGEST_URL = httpUrlKey(
                    "ingest.url", "http://127.0.0.1:8090/ingest", "central's ingest endpoint")
            .see("docs/protocol.md#21-the-request");
    public static final ConfigKey<Optional<String>> INGEST_TOKEN = optionalTextKey(
                    "ingest.token", "bearer token sent to central")
            .see("docs/forwarding.md#auth-and-tls-to-central");
    public static final ConfigKey<Optional<Path>> INGEST_TOKEN_FILE = optionalPathKey(
                    "ingest.tokenFile",
                    "file holding ingest.token, so that the token is in neither the YAML nor the environment")
            .see("docs/install.md#4-configuration");
    public static final ConfigKey<Optional<Path>> INGEST_CA_FILE = optionalPathKey(
                    "ingest.caFile",
                    "CA certificates (PEM) to trust for an https:// ingest.url, instead of the JVM's trust store")
            .see("docs/forwarding.md#auth-and-tls-to-central");
    public static final ConfigKey<Optional<Path>> INGEST_CERT_FILE = optionalPathKey(
                    "ingest.certFile",
                    "client certificate chain (PEM, leaf first) for a central that asks for one (mTLS)")
            .see("docs/forwarding.md#client-certificate-mtls");
    public static final ConfigKey<Optional<Path>> INGEST_KEY_FILE = optionalPathKey(
                    "ingest.keyFile",
                    "private key of ingest.certFile: PEM PKCS#8, unencrypted, readable by its owner only")
            .see("docs/forwarding.md#client-certificate-mtls");
    public static final ConfigKey<Duration> INGEST_CERT_EXPIRY_WARNING = durationKey(
                    "ingest.certExpiryWarning",
                    "14d",
                    Duration.ofHours(1),
                    Duration.ofDays(365),
                    "how long before ingest.certFile expires the alarm ingest_certificate_expiring is raised")
            .see("docs/forwarding.md#client-certificate-mtls");
    public static final ConfigKey<Optional<URI>> INGEST_OAUTH2_TOKEN_URL = ConfigKey.optionalHttpUrlKey(
                    "ingest.oauth2.tokenUrl",
                    "OAuth2 token endpoint (client credentials grant) that gives central's bearer token")
            .see("docs/forwarding.md#oauth2-client-credentials");
    public static final ConfigKey<Optional<String>> INGEST_OAUTH2_CLIENT_ID = optionalTextKey(
                    "ingest.oauth2.clientId", "the bridge's client id at the token endpoint")
            .see("docs/forwarding.md#oauth2-client-credentials");
    public static final ConfigKey<Optional<Path>> INGEST_OAUTH2_CLIENT_SECRET_FILE = optionalPathKey(
                    "ingest.oauth2.clientSecretFile",
                    "file holding the client secret (one line), readable by its owner only")
            .see("docs/forwarding.md#oauth2-client-credentials");
    public static final ConfigKey<Optional<String>> INGEST_OAUTH2_SCOPE = optionalTextKey(
                    "ingest.oauth2.scope", "scope asked for (space-separated), if central's token endpoint wants one")
            .see("docs/forwarding.md#oauth2-client-credentials");
    public static final ConfigKey<Optional<String>> INGEST_OAUTH2_AUDIENCE = optionalTextKey(
                    "ingest.oauth2.audience",
                    "audience sent with the token request, if central's token endpoint wants one")
            .see("docs/forwarding.md#oauth2-client-credentials");
    public static final ConfigKey<OAuth2Settings.ClientAuth> INGEST_OAUTH2_CLIENT_AUTH = enumKey(
                    "ingest.oauth2.clientAuth",
                    OAuth2Settings.ClientAuth.BASIC,
                    OAuth2Settings.ClientAuth.class,
                    "how the client id and secret go to the token endpoint: basic (HTTP Basic) or post (the form)")
            .see("docs/forwarding.md#oauth2-client-credentials");
    public static final ConfigKey<Optional<URI>> INGEST_PROXY = ConfigKey.optionalProxyKey(
                    "ingest.proxy", "the site's HTTP proxy, through which every request to central goes; unset: direct")
            .see("docs/forwarding.md#the-sites-proxy");
    public static final ConfigKey<Compression> INGEST_COMPRESSION = enumKey(
                    "ingest.compression",
                    Compression.NONE,
                    Compression.class,
                    "gzip sends each request body gzipped (Content-Encoding: gzip), if central accepts it")
            .see("docs/protocol.md#21-the-request");
    public static final ConfigKey<IngestClientKind> INGEST_CLIENT = enumKey(
                    "ingest.client",
                    IngestClientKind.JDK,
                    IngestClientKind.class,
                    "jdk: the JDK's HTTP client and its threads; blocking: HttpURLConnection on the forwarder's thread (https only)")
            .see("docs/forwarding.md#the-http-client-ingestclient");
    public static final ConfigKey<Duration> INGEST_TIMEOUT = durationKey(
                    "ingest.timeout",
                    "30s",
                    Duration.ofMillis(100),
                    Duration.ofMinutes(10),
                    "deadline of one whole exchange with central: connect, send, headers and body")
            .see("docs/forwarding.md#resilience4j-guards");
    public static final ConfigKey<Integer> INGEST_MAX_REPLY_BYTES = intSizeKey(
                    "ingest.maxReplyBytes",
                    "4MiB",
                    64 * 1024,
                    1024 * 1024 * 1024,
                    "longest reply body read from central")
            .see("docs/forwarding.md#resilience4j-guards");
    public static final ConfigKey<Integer> INGEST_MAX_RECEIPT_RESULT_BYTES = intSizeKey(
                    "ingest.maxReceiptResultBytes",
                    "4KiB",
                    256,
                    1024 * 1024,
                    "largest result (as JSON) of a receipt from central that is believed")
            .see("docs/protocol.md#23-the-reply-and-what-the-bridge-does-with-it");
    public static final ConfigKey<Integer> INGEST_MAX_RECEIPT_MESSAGE_BYTES = intSizeKey(
                    "ingest.maxReceiptMessageBytes",
                    "1KiB",
                    64,
                    64 * 1024,
                    "largest message (UTF-8) of a receipt from central that is believed")
            .see("docs/protocol.md#23-the-reply-and-what-the-bridge-does-with-it");
    public static final ConfigKey<Integer> INGEST_MAX_RECEIPT_CODE_BYTES = intSizeKey(
                    "ingest.maxReceiptCodeBytes",
                    "128",
                    16,
                    1024,
                    "largest code (UTF-8) of a receipt from central that is believed")
            .see("docs/protocol.md#23-the-reply-and-what-the-bridge-does-with-it");

    private IngestKeys() {}
}
