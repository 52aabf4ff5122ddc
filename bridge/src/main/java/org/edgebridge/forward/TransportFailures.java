package org.edgebridge.forward;

import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;
import org.edgebridge.forward.auth.ClientCertificate;
import org.jspecify.annotations.Nullable;

/**
 * Says in words what went wrong when a request to central got no HTTP answer: which host and port, and whether the
 * name did not resolve (DNS), nothing accepted the connection, TLS failed, or the connection was cut. The JDK's
 * client reports most of these as a bare {@code ConnectException}; the cause chain tells them apart. Pure.
 */
final class TransportFailures {
    private TransportFailures() {}

    /** What {@link #describe} says of a failure before a connection was made: central or the network is down. */
    private static final List<String> BEFORE_CONNECT = List.of(
            "does not resolve",
            "no connection to ",
            "TLS with ",
            "no route to ",
            " refused",
            "cannot connect to ",
            "did not open the CONNECT tunnel");

    /**
     * Whether a described failure happened after the connection was made: reset, or closed before a reply. A central
     * whose parser dies on one event does that to every request that holds it, so it may be one event's
     * doing, like a 5xx; a refused connection, DNS, TLS or a connect timeout are not.
     */
    static boolean droppedAfterConnect(@Nullable String described) {
        return described != null && BEFORE_CONNECT.stream().noneMatch(described::contains);
    }

    /**
     * As {@link #describe(URI, Throwable)}, through {@code ingest.proxy} when one is set: a CONNECT the proxy refused
     * says so, TLS failures concern central (through the tunnel), anything else concerns the proxy.
     */
    /** HttpURLConnection's refused tunnel: {@code Unable to tunnel through proxy. Proxy returns "HTTP/1.1 403 …"}. */
    private static final Pattern TUNNEL_STATUS = Pattern.compile("Proxy returns \"HTTP/\\d(?:\\.\\d)? (\\d{3})");

    static String describe(URI url, Optional<URI> proxy, Throwable error) {
        if (proxy.isEmpty()) {
            return describe(url, error);
        }
        String via = "ingest.proxy " + proxy.get().getHost() + ":" + proxy.get().getPort();
        for (Throwable t = error; t != null; t = t.getCause()) {
            String m = t.getMessage() == null ? "" : t.getMessage();
            String lower = m.toLowerCase(Locale.ROOT);
            // the JDK's HTTP client says "tunnel failed", HttpURLConnection "Unable to tunnel through proxy"
            if (lower.contains("tunnel failed") || lower.contains("unable to tunnel")) {
                Matcher status = TUNNEL_STATUS.matcher(m);
                if (status.find()) { // HttpURLConnection's words, told as the JDK's client tells them
                    m = "Tunnel failed, got: " + status.group(1);
                }
                return via + " did not open the CONNECT tunnel to " + url.getHost() + ":" + port(url) + " (" + m
                        + "): the proxy refuses central (403) or cannot reach it (5xx); check the proxy and ingest.url";
            }
            if (t instanceof SSLException) {
                return describe(url, error) + " (through " + via + ")";
            }
        }
        return via + ": " + describe(proxy.get(), error).replace("ingest.url", "ingest.proxy");
    }

    static String describe(URI url, Throwable error) {
        String where = url.getHost() + ":" + port(url);
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof UnresolvedAddressException || t instanceof UnknownHostException) {
                return "host " + url.getHost() + " of ingest.url does not resolve (DNS)";
            }
            if (t instanceof HttpConnectTimeoutException
                    || t instanceof SocketTimeoutException && "connect timed out".equalsIgnoreCase(t.getMessage())) {
                return "no connection to " + where
                        + " within the connect timeout (a firewall dropping packets, or the host is down)";
            }
            if (t instanceof SSLException) {
                return "TLS with " + where + " failed (" + message(t) + "); "
                        + (refusedClientCertificate(t)
                                ? "central refused the client certificate: check ingest.certFile (expired? signed by "
                                        + "a CA central trusts?)"
                                : "check the server certificate and ingest.caFile");
            }
            if (t instanceof NoRouteToHostException) {
                return "no route to " + where;
            }
        }
        for (Throwable t = error; t != null; t = t.getCause()) {
            String m = t.getMessage() == null ? "" : t.getMessage().toLowerCase(Locale.ROOT);
            // the JDK's client reports a refused connection as ConnectException(s) without a message, caused by a
            // ClosedChannelException (DNS, TLS and connect timeouts were told apart above)
            if (m.contains("connection refused") || t instanceof ConnectException && m.isEmpty()) {
                return "connection to " + where + " refused (nothing listens there: check ingest.url)";
            }
            if (m.contains("reset")) {
                return "connection to " + where + " reset";
            }
            if (t instanceof ConnectException) {
                return "cannot connect to " + where + " (" + message(t) + ")";
            }
        }
        if (error instanceof IOException) {
            return "connection to " + where + " failed: " + message(error);
        }
        return where + ": " + message(error);
    }

    /**
     * A failed exchange with central in words: {@link #describe(URI, Optional, Throwable)}, or, while the client
     * certificate presented has expired ({@code expired}), {@link #expiredClientCertificate} around it.
     */
    static String ofExchange(ForwarderSettings.Central central, Optional<ClientCertificate> expired, Throwable cause) {
        String described = describe(central.url(), central.proxy(), cause);
        return expired.map(c -> expiredClientCertificate(central.url(), c.notAfter(), c.serial(), described))
                .orElse(described);
    }

    /**
     * A failure after the TLS handshake while the client certificate presented has expired: the server's refusal of it
     * (a TLS failure, before anything was sent: not one event's doing).
     */
    static String expiredClientCertificate(URI url, Instant notAfter, String serial, String described) {
        return "TLS with " + url.getHost() + ":" + port(url) + ": central does not take the client certificate, which "
                + "expired at " + notAfter + " (ingest.certFile, serial " + serial + "); renew it (" + described + ")";
    }

    /** Alerts a server sends when it does not accept the client's certificate (or the lack of one). */
    private static final List<String> CLIENT_CERTIFICATE_ALERTS = List.of(
            "bad_certificate",
            "certificate_required",
            "certificate_expired",
            "certificate_unknown",
            "unknown_ca",
            "certificate_revoked",
            "unsupported_certificate");

    private static boolean refusedClientCertificate(Throwable t) {
        String m = String.valueOf(t.getMessage());
        return m.contains("Received fatal alert")
                && CLIENT_CERTIFICATE_ALERTS.stream().anyMatch(m::contains);
    }

    private static String message(Throwable t) {
        return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    }

    private static int port(URI url) {
        return url.getPort() != -1 ? url.getPort() : "https".equalsIgnoreCase(url.getScheme()) ? 443 : 80;
    }
}
