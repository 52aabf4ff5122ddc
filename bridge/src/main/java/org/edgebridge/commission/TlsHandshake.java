package org.edgebridge.commission;

import static org.edgebridge.commission.StepHelpers.failed;
import static org.edgebridge.commission.StepHelpers.port;
import static org.edgebridge.commission.StepHelpers.readHead;
import static org.edgebridge.commission.StepHelpers.rootMessage;
import static org.edgebridge.commission.StepHelpers.since;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.edgebridge.forward.ForwarderSettings;
import org.edgebridge.forward.auth.ClientCertificate;
import org.jspecify.annotations.Nullable;

/**
 * The {@code tls} and {@code client-certificate} steps on the connection to central (through the proxy's tunnel when
 * there is one): the handshake as the forwarder's client makes it ({@code ingest.caFile}, central's name, the client
 * certificate), then one {@code HEAD} on the session, on which a TLS 1.3 server shows its refusal of the certificate.
 * One use.
 */
final class TlsHandshake {
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
    private final ClientCertificateVerdicts verdicts;

    TlsHandshake(ForwarderSettings settings, Deadline deadline, Clock clock) {
        this.settings = settings;
        this.deadline = deadline;
        this.clock = clock;
        this.url = settings.central().url();
        this.verdicts = new ClientCertificateVerdicts(settings, clock);
    }

    /** Runs the {@code tls} and {@code client-certificate} steps into {@code steps}; returns the one that failed. */
    Optional<String> run(Socket socket, List<CheckStep> steps, Optional<ClientCertificate> certificate) {
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
                    return failed(steps, TlsFailures.of(e, url, trust, deadline, since(start)));
                }
                steps.add(CheckStep.pass(
                        "tls",
                        "central's certificate is trusted by " + trust
                                + " and its name matches "
                                + url.getHost()
                                + " (the handshake then ended on central's refusal of the client certificate)",
                        since(start)));
                steps.add(verdicts.refused(certificate, alert != null ? alert : rootMessage(e), since(start)));
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
                    ? verdicts.refused(certificate, refusal, since(probeStart))
                    : verdicts.taken(certificate, presented, since(probeStart));
            steps.add(step);
            return step.failed() ? Optional.of("client-certificate") : Optional.empty();
        } catch (IOException e) {
            return failed(steps, TlsFailures.of(e, url, trust, deadline, since(start)));
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
}
