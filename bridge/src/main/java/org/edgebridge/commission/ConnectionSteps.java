package org.edgebridge.commission;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.edgebridge.forward.ForwarderSettings;
import org.edgebridge.forward.auth.ClientCertificate;
import org.jspecify.annotations.Nullable;

/**
 * The steps of the way to central up to a TLS session, on one socket as the forwarder's client would open it: the
 * name lookup ({@code dns}), the connection ({@code tcp}), the proxy's tunnel ({@code proxy}), the handshake
 * ({@code tls}) and whether central takes the client certificate ({@code client-certificate}). Each step names the
 * key to change. One use.
 */
final class ConnectionSteps {
    private static final int MAX_HEAD_BYTES = 16 * 1024;
    /** TLS alerts with which a server refuses the client's certificate (or its absence). */
    private static final List<String> CERTIFICATE_ALERTS = List.of(
            "bad_certificate",
            "certificate_unknown",
            "certificate_expired",
            "certificate_required",
            "unknown_ca",
            "access_denied",
            "certificate_revoked",
            "unsupported_certificate");

    private final ForwarderSettings settings;
    private final Deadline deadline;
    private final Clock clock;
    private final URI url;
    private final boolean https;
    private final String key;
    private final String role;
    private final URI target;

    ConnectionSteps(ForwarderSettings settings, Deadline deadline, Clock clock) {
        this.settings = settings;
        this.deadline = deadline;
        this.clock = clock;
        this.url = settings.central().url();
        this.https = "https".equalsIgnoreCase(url.getScheme());
        this.key = settings.central().proxy().isPresent() ? "ingest.proxy" : "ingest.url";
        this.role = settings.central().proxy().isPresent() ? "the proxy (ingest.proxy)" : "central (ingest.url)";
        this.target = settings.central().proxy().orElse(url);
    }

    static int port(URI uri) {
        return uri.getPort() >= 0 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
    }

    /** Runs the steps into {@code steps}; returns the name of the step that failed, if one did. */
    Optional<String> run(List<CheckStep> steps, Optional<ClientCertificate> certificate) {
        String host = String.valueOf(target.getHost());
        int port = port(target);
        long start = System.nanoTime();
        InetAddress[] addresses;
        try {
            addresses = deadline.resolve(host);
        } catch (UnknownHostException e) {
            return failed(
                    steps,
                    CheckStep.fail(
                            "dns",
                            host + " does not resolve: the name of " + role + " has no address (" + e.getMessage()
                                    + ")",
                            "check the host name in " + key + " for a typo, and the box's DNS servers "
                                    + "(/etc/resolv.conf; 'getent hosts " + host + "' must print an address)",
                            since(start)));
        } catch (TimeoutException e) {
            return failed(
                    steps,
                    CheckStep.fail(
                            "dns",
                            "the name " + host + " of " + role + " got no answer within " + deadline.millis() + " ms",
                            "check the box's DNS servers (/etc/resolv.conf) and that DNS (port 53) "
                                    + "may leave the site",
                            since(start)));
        }
        steps.add(CheckStep.pass(
                "dns",
                host + " resolves to "
                        + Arrays.stream(addresses)
                                .map(InetAddress::getHostAddress)
                                .collect(Collectors.joining(", "))
                        + (settings.central().proxy().isPresent()
                                ? "; central (" + url.getHost() + ") is resolved and reached by the proxy"
                                : ""),
                since(start)));

        start = System.nanoTime();
        Socket socket;
        try {
            socket = connect(addresses, port);
        } catch (IOException e) {
            return failed(steps, tcpFailure(host, port, e, since(start)));
        }
        steps.add(CheckStep.pass(
                "tcp",
                "connected to " + role + " at " + host + ":" + port + " ("
                        + socket.getInetAddress().getHostAddress() + ")",
                since(start)));
        try (Socket open = socket) {
            return throughTheSocket(open, steps, certificate);
        } catch (IOException e) {
            return Optional.empty(); // closing failed: the steps are done
        }
    }

    private Optional<String> throughTheSocket(
            Socket socket, List<CheckStep> steps, Optional<ClientCertificate> certificate) {
        if (settings.central().proxy().isEmpty()) {
            steps.add(CheckStep.skip("proxy", "no ingest.proxy: the connection to central is direct"));
        } else if (!https) {
            steps.add(CheckStep.skip(
                    "proxy",
                    "http:// central: requests go to the proxy as plain HTTP, no CONNECT (the "
                            + "request step checks the proxy)"));
        } else {
            CheckStep tunnel = connectTunnel(socket);
            steps.add(tunnel);
            if (tunnel.failed()) {
                return Optional.of("proxy");
            }
        }
        if (!https) {
            steps.add(CheckStep.skip(
                    "tls",
                    "http:// central: no TLS (anyone on the way can read the commands; use "
                            + "https:// where central offers it)"));
            steps.add(CheckStep.skip(
                    "client-certificate",
                    settings.credentials().clientCertificate().isPresent()
                            ? "http:// central: ingest.certFile is not used"
                            : "http:// central: no TLS, no client certificate"));
            return Optional.empty();
        }
        return handshake(socket, steps, certificate);
    }

    private Socket connect(InetAddress[] addresses, int port) throws IOException {
        IOException last = new IOException("no address");
        for (InetAddress a : addresses) {
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(a, port), deadline.millis());
                s.setSoTimeout(deadline.millis());
                return s;
            } catch (IOException e) {
                s.close();
                last = e;
            }
        }
        throw last;
    }

    private CheckStep tcpFailure(String host, int port, IOException e, long millis) {
        String where = role + " at " + host + ":" + port;
        if (e instanceof ConnectException) {
            return CheckStep.fail(
                    "tcp",
                    "nothing accepts connections at " + where + " (" + e.getMessage() + ")",
                    "check the port in " + key + " and that " + role + " runs there; a firewall may refuse it too",
                    millis);
        }
        if (e instanceof SocketTimeoutException) {
            return CheckStep.fail(
                    "tcp",
                    "no answer from " + where + " within " + deadline.millis()
                            + " ms: the packets are dropped on the way",
                    "check the firewalls between this box and " + role
                            + " (outbound TCP to port "
                            + port + ") and the address in " + key,
                    millis);
        }
        if (e instanceof NoRouteToHostException) {
            return CheckStep.fail(
                    "tcp",
                    "no route to " + where,
                    "check the box's network: its address, default route and VLAN",
                    millis);
        }
        return CheckStep.fail(
                "tcp", "cannot connect to " + where + ": " + e, "check " + key + " and the network", millis);
    }

    /** {@code CONNECT host:port} through the proxy on {@code socket}, as the JDK's client sends it. */
    private CheckStep connectTunnel(Socket socket) {
        long start = System.nanoTime();
        String authority = url.getHost() + ":" + port(url);
        String proxy = target.getHost() + ":" + port(target);
        try {
            OutputStream out = socket.getOutputStream();
            out.write(("CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String head = readHead(socket.getInputStream());
            String statusLine = head.lines().findFirst().orElse("");
            int status = statusCode(statusLine);
            if (status == 200) {
                return CheckStep.pass(
                        "proxy",
                        "the proxy at " + proxy + " opened a tunnel to " + authority + " (" + statusLine + ")",
                        since(start));
            }
            return CheckStep.fail(
                    "proxy",
                    "the proxy at " + proxy + " answered CONNECT " + authority + " with '" + statusLine + "'"
                            + proxyReason(status),
                    proxyFix(status, authority),
                    since(start));
        } catch (SocketTimeoutException e) {
            return CheckStep.fail(
                    "proxy",
                    "the proxy at " + proxy + " did not answer CONNECT " + authority + " within " + deadline.millis()
                            + " ms",
                    "check that ingest.proxy is an HTTP proxy (not SOCKS) and its port",
                    since(start));
        } catch (IOException e) {
            return CheckStep.fail(
                    "proxy",
                    "the proxy at " + proxy + " closed the connection instead of answering CONNECT " + authority + " ("
                            + e.getMessage() + ")",
                    "check that ingest.proxy is an HTTP proxy (not SOCKS) and its port",
                    since(start));
        }
    }

    private static String proxyReason(int status) {
        return switch (status) {
            case 407 -> ": it wants a login, and the bridge sends none";
            case 403 -> ": it refuses this box, or tunnels to that port";
            case 502, 503, 504, 500 -> ": it could not reach central";
            default -> "";
        };
    }

    private static String proxyFix(int status, String authority) {
        return switch (status) {
            case 407 ->
                "ask the proxy's admin to let this box's address through without a login (the bridge has no "
                        + "proxy "
                        + "credentials)";
            case 403 ->
                "ask the proxy's admin to allow this box CONNECT to " + authority
                        + " (a port other than 443 is "
                        + "often refused)";
            case 502, 503, 504, 500 ->
                "check central's host and port in ingest.url (the proxy resolves and connects "
                        + "to "
                        + "them) and that central runs; the proxy's log says more";
            default -> "check ingest.proxy: it must be the site's HTTP proxy (host and port)";
        };
    }

    private Optional<String> handshake(Socket socket, List<CheckStep> steps, Optional<ClientCertificate> certificate) {
        long start = System.nanoTime();
        String trust = settings.credentials()
                .caFile()
                .map(f -> "ingest.caFile=" + f)
                .orElse("the JVM's trust store (no ingest.caFile)");
        WatchedTls watched;
        try {
            watched = new WatchedTls(settings.credentials().caFile(), certificate);
        } catch (IllegalStateException e) {
            return failed(
                    steps,
                    CheckStep.fail(
                            "tls",
                            String.valueOf(e.getMessage()),
                            "put the PEM file of the CA that signed "
                                    + "central's certificate at ingest.caFile (ask central's team for it)",
                            since(start)));
        }
        try (SSLSocket tls = (SSLSocket)
                watched.context().getSocketFactory().createSocket(socket, url.getHost(), port(url), false)) {
            SSLParameters p = tls.getSSLParameters();
            p.setEndpointIdentificationAlgorithm("HTTPS");
            tls.setSSLParameters(p);
            tls.setSoTimeout(deadline.millis());
            try {
                tls.startHandshake();
            } catch (IOException e) {
                @Nullable String alert = refusedCertificate(e);
                // trusted, then refused: central ended the handshake on seeing this box's certificate (or none)
                if (!watched.serverTrusted() || alert == null && !watched.certificateAsked()) {
                    return failed(steps, tlsFailure(e, trust, since(start)));
                }
                steps.add(CheckStep.pass(
                        "tls",
                        "central's certificate is trusted by " + trust
                                + " and its name matches "
                                + url.getHost()
                                + " (the handshake then ended on central's refusal of the client certificate)",
                        since(start)));
                steps.add(clientCertificateRefused(certificate, alert != null ? alert : rootMessage(e), since(start)));
                return Optional.of("client-certificate");
            }
            X509Certificate server = (X509Certificate) tls.getSession().getPeerCertificates()[0];
            Instant notAfter = server.getNotAfter().toInstant();
            steps.add(CheckStep.pass(
                    "tls",
                    tls.getSession().getProtocol() + " with "
                            + server.getSubjectX500Principal().getName()
                            + ", issued by " + server.getIssuerX500Principal().getName() + ", valid until " + notAfter
                            + (notAfter.isBefore(clock.instant().plus(Duration.ofDays(14)))
                                    ? " (in under 14 days: tell central's team)"
                                    : "")
                            + "; trusted by " + trust + ", its name matches " + url.getHost(),
                    since(start)));
            long probeStart = System.nanoTime();
            @Nullable String refusal = probe(tls);
            boolean presented = watched.certificateAsked() && certificate.isPresent();
            CheckStep step = refusal != null
                    ? clientCertificateRefused(certificate, refusal, since(probeStart))
                    : clientCertificateTaken(certificate, presented, since(probeStart));
            steps.add(step);
            return step.failed() ? Optional.of("client-certificate") : Optional.empty();
        } catch (IOException e) {
            return failed(steps, tlsFailure(e, trust, since(start)));
        }
    }

    /**
     * One {@code HEAD} on the TLS session: with TLS 1.3 a server checks the client's certificate after the handshake,
     * so its refusal shows only on the first read. @return null when central answered HTTP, else what happened
     */
    private @Nullable String probe(SSLSocket tls) {
        String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
        try {
            OutputStream out = tls.getOutputStream();
            out.write(("HEAD " + path + " HTTP/1.1\r\nHost: " + url.getAuthority() + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String head = readHead(tls.getInputStream());
            return head.startsWith("HTTP/") ? null : "central closed the connection without an answer";
        } catch (SocketTimeoutException e) {
            return null; // no refusal within the deadline: the request step shows whether central answers
        } catch (IOException e) {
            return String.valueOf(e.getMessage());
        }
    }

    private CheckStep clientCertificateTaken(Optional<ClientCertificate> certificate, boolean presented, long millis) {
        if (certificate.isEmpty()) {
            return settings.credentials().clientCertificate().isPresent()
                    ? CheckStep.fail(
                            "client-certificate", "ingest.certFile cannot be used (see above)", "fix the pair", millis)
                    : CheckStep.skip(
                            "client-certificate", "no ingest.certFile, and central did not ask for a certificate");
        }
        ClientCertificate c = certificate.get();
        Instant now = clock.instant();
        Optional<CheckStep> local = localProblem(c, now, millis);
        if (local.isPresent()) {
            return local.get();
        }
        long days = Duration.between(now, c.notAfter()).toDays();
        Duration warning = settings.credentials()
                .clientCertificate()
                .map(s -> s.expiryWarning())
                .orElse(Duration.ofDays(14));
        return CheckStep.pass(
                "client-certificate",
                c.subject() + " (serial " + c.serial() + "), valid until " + c.notAfter()
                        + " (" + days + " days"
                        + (c.notAfter().isBefore(now.plus(warning))
                                ? ", within ingest.certExpiryWarning: renew it soon"
                                : "")
                        + "); "
                        + (presented
                                ? "central asked for it and took it"
                                : "central did not ask for it (it is not needed there)"),
                millis);
    }

    /** The certificate is not valid at this moment on this box's clock. */
    private static Optional<CheckStep> localProblem(ClientCertificate c, Instant now, long millis) {
        if (!now.isBefore(c.notAfter())) {
            return Optional.of(CheckStep.fail(
                    "client-certificate",
                    "the certificate in ingest.certFile (" + c.subject() + ", serial " + c.serial() + ") expired at "
                            + c.notAfter(),
                    "renew it and put the new certificate and "
                            + "key at ingest.certFile and ingest.keyFile (a running bridge takes them without a "
                            + "restart)",
                    millis));
        }
        Instant notBefore = c.leaf().getNotBefore().toInstant();
        if (now.isBefore(notBefore)) {
            return Optional.of(CheckStep.fail(
                    "client-certificate",
                    "the certificate in ingest.certFile (" + c.subject() + ") is valid only from " + notBefore,
                    "check the box's clock (the clock step) or the certificate's dates",
                    millis));
        }
        return Optional.empty();
    }

    private CheckStep clientCertificateRefused(Optional<ClientCertificate> certificate, String why, long millis) {
        if (certificate.isEmpty()) {
            return CheckStep.fail(
                    "client-certificate",
                    "central asks for a client certificate and refused the connection without one (" + why + ")",
                    "set ingest.certFile and ingest.keyFile to this box's certificate and key, "
                            + "issued by a CA central trusts",
                    millis);
        }
        ClientCertificate c = certificate.get();
        return localProblem(c, clock.instant(), millis)
                .orElseGet(() -> CheckStep.fail(
                        "client-certificate",
                        "central refused the client certificate " + c.subject() + " (serial " + c.serial()
                                + ", issued by "
                                + c.leaf().getIssuerX500Principal().getName() + "): " + why,
                        "have the certificate issued by a CA central "
                                + "trusts (ask central's team which), then put it at ingest.certFile and "
                                + "ingest.keyFile",
                        millis));
    }

    /** The TLS alert by which central refused the client's certificate, or null if the failure was another. */
    private static @Nullable String refusedCertificate(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = t.getMessage();
            if (t instanceof SSLException
                    && m != null
                    && m.contains("Received fatal alert")
                    && CERTIFICATE_ALERTS.stream().anyMatch(m::contains)) {
                return m;
            }
        }
        return null;
    }

    private CheckStep tlsFailure(IOException e, String trust, long millis) {
        String all = causes(e);
        String host = url.getHost();
        if (all.contains("CertificateExpiredException") || all.contains("validity check failed")) {
            return CheckStep.fail(
                    "tls",
                    "central's certificate has expired (" + rootMessage(e) + ")",
                    "central's team must "
                            + "renew its certificate; if it has not expired, the box's clock is wrong (see the clock "
                            + "step)",
                    millis);
        }
        if (all.contains("No subject alternative") || all.contains("No name matching")) {
            return CheckStep.fail(
                    "tls",
                    "central's certificate is not for " + host + " (" + rootMessage(e) + ")",
                    "use in ingest.url the name central's certificate is issued for, or have it reissued for " + host,
                    millis);
        }
        if (all.contains("PKIX path")
                || all.contains("CertPathBuilderException")
                || all.contains("CertPathValidatorException")) {
            return CheckStep.fail(
                    "tls",
                    "central's certificate chain is not signed by a CA in " + trust + " (" + rootMessage(e) + ")",
                    "set ingest.caFile to the PEM file of the CA that signed central's certificate "
                            + "(ask central's team for it)",
                    millis);
        }
        if (all.contains("Unsupported or unrecognized SSL message")) {
            return CheckStep.fail(
                    "tls",
                    "central at " + host + ":" + port(url) + " does not speak TLS",
                    "use http:// in ingest.url, or central's https port",
                    millis);
        }
        if (e instanceof SocketTimeoutException) {
            return CheckStep.fail(
                    "tls",
                    "no TLS answer from central within " + deadline.millis() + " ms",
                    "check that ingest.url's port is central's https port",
                    millis);
        }
        if (all.contains("handshake_failure") || all.contains("protocol_version")) {
            return CheckStep.fail(
                    "tls",
                    "central and this box have no TLS version or cipher in common (" + rootMessage(e) + ")",
                    "ask central's team which TLS versions it takes (the bridge offers TLS 1.2 and 1.3)",
                    millis);
        }
        return CheckStep.fail(
                "tls",
                "the TLS handshake with central failed: " + rootMessage(e),
                "check ingest.url, ingest.caFile and ingest.certFile",
                millis);
    }

    private static String causes(Throwable e) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t.getClass().getName())
                    .append(": ")
                    .append(t.getMessage())
                    .append('\n');
        }
        return all.toString();
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    }

    /** The status line and headers of an HTTP answer, up to the blank line (at most 16 KiB). */
    private static String readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (head.length() < MAX_HEAD_BYTES && !head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            head.append((char) b);
        }
        return head.toString();
    }

    private static int statusCode(String statusLine) {
        String[] parts = statusLine.split(" ");
        try {
            return parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static Optional<String> failed(List<CheckStep> steps, CheckStep step) {
        steps.add(step);
        return Optional.of(step.step());
    }

    static long since(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }
}
