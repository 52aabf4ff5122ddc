package org.edgebridge.commission;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.edgebridge.forward.ForwarderSettings;
import org.edgebridge.forward.auth.ClientCertificate;

/**
 * The {@code client-certificate} step's verdicts: the certificate of {@code ingest.certFile} taken by central (or not
 * needed), refused by it, or not valid at this moment on this box's clock, each with what to do.
 */
final class ClientCertificateVerdicts {
    private final ForwarderSettings settings;
    private final Clock clock;

    ClientCertificateVerdicts(ForwarderSettings settings, Clock clock) {
        this.settings = settings;
        this.clock = clock;
    }

    /**
     * Central went on after the handshake: the certificate is taken (or none was needed), unless it cannot be used.
     *
     * @param presented central asked for the certificate and it was sent
     */
    CheckStep taken(Optional<ClientCertificate> certificate, boolean presented, long millis) {
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

    /** Central refused the connection for the certificate (or its absence); {@code why} is what it said. */
    CheckStep refused(Optional<ClientCertificate> certificate, String why, long millis) {
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
}
