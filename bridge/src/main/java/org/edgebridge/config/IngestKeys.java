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
    public static final ConfigKey<URI> INGEST_URL =
            httpUrlKey("ingest.url", "http://127.0.0.1:8090/ingest", "central's ingest endpoint");
    public static final ConfigKey<Optional<String>> INGEST_TOKEN =
            optionalTextKey("ingest.token", "bearer token sent to central");
    public static final ConfigKey<Optional<Path>> INGEST_TOKEN_FILE = optionalPathKey(
            "ingest.tokenFile",
            "file holding ingest.token (read at start, one trailing newline stripped), so that it is not in the YAML "
                    + "or the environment; not together with ingest.token; a file others may read is warned about");
    public static final ConfigKey<Optional<Path>> INGEST_CA_FILE = optionalPathKey(
            "ingest.caFile",
            "CA certificates (PEM) to trust for an https:// ingest.url, instead of the JVM's trust store");
    public static final ConfigKey<Optional<Path>> INGEST_CERT_FILE = optionalPathKey(
            "ingest.certFile",
            "client certificate chain (PEM, leaf first) for an https:// central that asks for one (mTLS), with "
                    + "ingest.keyFile; a renewed pair is used without a restart (docs/forwarding.md, 'Client "
                    + "certificate (mTLS)')");
    public static final ConfigKey<Optional<Path>> INGEST_KEY_FILE = optionalPathKey(
            "ingest.keyFile",
            "private key of ingest.certFile, PEM PKCS#8 unencrypted (BEGIN PRIVATE KEY); readable by its owner only, "
                    + "or refused");
    public static final ConfigKey<Duration> INGEST_CERT_EXPIRY_WARNING = durationKey(
            "ingest.certExpiryWarning",
            "14d",
            Duration.ofHours(1),
            Duration.ofDays(365),
            "how long before ingest.certFile's certificate expires the alarm ingest_certificate_expiring is raised "
                    + "(ingest_certificate_expired once it has)");
    public static final ConfigKey<Optional<URI>> INGEST_OAUTH2_TOKEN_URL = ConfigKey.optionalHttpUrlKey(
            "ingest.oauth2.tokenUrl",
            "OAuth2 token endpoint (client credentials grant) for central's bearer token; needs ingest.oauth2.clientId "
                    + "and ingest.oauth2.clientSecretFile, not with ingest.token(File) (docs/forwarding.md, 'OAuth2 "
                    + "client credentials')");
    public static final ConfigKey<Optional<String>> INGEST_OAUTH2_CLIENT_ID =
            optionalTextKey("ingest.oauth2.clientId", "the bridge's client id at the token endpoint");
    public static final ConfigKey<Optional<Path>> INGEST_OAUTH2_CLIENT_SECRET_FILE = optionalPathKey(
            "ingest.oauth2.clientSecretFile",
            "file holding the client secret (one line; never in the YAML), read at each token request (a corrected "
                    + "file is used at the next one); readable by its owner only, or refused");
    public static final ConfigKey<Optional<String>> INGEST_OAUTH2_SCOPE = optionalTextKey(
            "ingest.oauth2.scope", "scope asked for (space-separated), if central's token endpoint wants one");
    public static final ConfigKey<Optional<String>> INGEST_OAUTH2_AUDIENCE = optionalTextKey(
            "ingest.oauth2.audience",
            "audience parameter sent with the token request (Auth0, Okta and others name central's API so), if set");
    public static final ConfigKey<OAuth2Settings.ClientAuth> INGEST_OAUTH2_CLIENT_AUTH = enumKey(
            "ingest.oauth2.clientAuth",
            OAuth2Settings.ClientAuth.BASIC,
            OAuth2Settings.ClientAuth.class,
            "how the client id and secret go to the token endpoint: basic (HTTP Basic, which every endpoint takes) or "
                    + "post (in the form body)");
    public static final ConfigKey<Optional<URI>> INGEST_PROXY = ConfigKey.optionalProxyKey(
            "ingest.proxy",
            "the site's HTTP proxy to central: every request goes through it (https:// central with CONNECT); "
                    + "HTTPS_PROXY/NO_PROXY are not read (set EDGE_BRIDGE_INGEST_PROXY instead); unset: direct");
    public static final ConfigKey<Compression> INGEST_COMPRESSION = enumKey(
            "ingest.compression",
            Compression.NONE,
            Compression.class,
            "gzip sends each request body gzipped (Content-Encoding: gzip; central must accept it); "
                    + "forwarder.maxBytes still bounds the body before compression");
    public static final ConfigKey<IngestClientKind> INGEST_CLIENT = enumKey(
            "ingest.client",
            IngestClientKind.JDK,
            IngestClientKind.class,
            "jdk: the JDK's HTTP client (its own selector and worker threads); blocking: HttpURLConnection on the "
                    + "forwarder's own thread (fewer context switches); the same bounds either way (docs/forwarding.md)");
    public static final ConfigKey<Duration> INGEST_TIMEOUT = durationKey(
            "ingest.timeout",
            "30s",
            Duration.ofMillis(100),
            Duration.ofMinutes(10),
            "deadline of one whole exchange with central (connect, send, headers and body); past it the request "
                    + "failed, as a transport failure");
    public static final ConfigKey<Integer> INGEST_MAX_REPLY_BYTES = intSizeKey(
            "ingest.maxReplyBytes",
            "4MiB",
            64 * 1024,
            1024 * 1024 * 1024,
            "longest reply body read from central; a longer one fails the request (a transport failure) and is not "
                    + "read past the cap");
    public static final ConfigKey<Integer> INGEST_MAX_RECEIPT_RESULT_BYTES = intSizeKey(
            "ingest.maxReceiptResultBytes",
            "4KiB",
            256,
            1024 * 1024,
            "largest result (as JSON) of a receipt from central that is believed; a receipt over it is treated as "
                    + "missing (the event is sent again) and counted as a contract violation");
    public static final ConfigKey<Integer> INGEST_MAX_RECEIPT_MESSAGE_BYTES = intSizeKey(
            "ingest.maxReceiptMessageBytes",
            "1KiB",
            64,
            64 * 1024,
            "largest message (UTF-8) of a receipt from central that is believed; over it, as for the result");
    public static final ConfigKey<Integer> INGEST_MAX_RECEIPT_CODE_BYTES = intSizeKey(
            "ingest.maxReceiptCodeBytes",
            "128",
            16,
            1024,
            "largest code (UTF-8) of a receipt from central that is believed; over it, as for the " + "result");

    private IngestKeys() {}
}
