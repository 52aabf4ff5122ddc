package org.edgebridge.admin;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.edgebridge.code.AlarmCode;
import org.edgebridge.forward.ForwarderStatus;
import org.edgebridge.forward.auth.ClientCertificateStatus;

/** The alarms about the bridge's own credentials for central: its client certificate and its OAuth2 token. Pure. */
final class CredentialAlarms {
    private CredentialAlarms() {}

    static List<StatusReport.Alarm> of(ForwarderStatus f, Instant now) {
        List<StatusReport.Alarm> alarms = new ArrayList<>();
        f.clientCertificate().ifPresent(c -> certificate(c, now, alarms));
        f.oauth2()
                .filter(t -> t.failuresInARow() > 0)
                .ifPresent(t -> alarms.add(new StatusReport.Alarm(
                        AlarmCode.INGEST_TOKEN_ENDPOINT_FAILING,
                        "no token for central from the OAuth2 token endpoint (" + t.failuresInARow()
                                + " failed requests in a row, " + t.failures() + " since start): "
                                + t.lastFailure().orElse("?")
                                + (t.tokenExpiresAt()
                                        .filter(now::isBefore)
                                        .map(at -> "; the token got before is used until it expires at " + at)
                                        .orElse("; nothing is sent to central until one comes: commands are kept, "
                                                + "tried again with the forwarder's backoff (not central's "
                                                + "fault: its circuit breaker and the commands' counts "
                                                + "are not touched)")))));
        return alarms;
    }

    private static void certificate(ClientCertificateStatus c, Instant now, List<StatusReport.Alarm> alarms) {
        String which = "the client certificate for central (ingest.certFile=" + c.certFile() + ", " + c.subject()
                + ", serial " + c.serial() + ")";
        String renew = "put the renewed certificate and its key in place (ingest.certFile, ingest.keyFile): they are "
                + "read "
                + "at the next request, no restart";
        if (c.expiredAt(now)) {
            alarms.add(new StatusReport.Alarm(
                    AlarmCode.INGEST_CERTIFICATE_EXPIRED,
                    which + " expired at " + c.notAfter() + ": central "
                            + "refuses the TLS handshake; commands are kept in the outbox; " + renew));
        } else if (c.expiringAt(now)) {
            alarms.add(new StatusReport.Alarm(
                    AlarmCode.INGEST_CERTIFICATE_EXPIRING,
                    which + " expires at " + c.notAfter() + ", in " + days(Duration.between(now, c.notAfter()))
                            + " (ingest.certExpiryWarning): " + renew));
        }
        c.reloadProblem()
                .ifPresent(problem -> alarms.add(new StatusReport.Alarm(
                        AlarmCode.INGEST_CERTIFICATE_UNUSABLE,
                        "the client certificate files changed on disk but cannot be used (" + problem
                                + "); the previous certificate (serial "
                                + c.serial() + ", valid until " + c.notAfter() + ") is still presented")));
    }

    private static String days(Duration d) {
        long hours = d.toHours();
        return hours >= 48 ? hours / 24 + " days" : hours + " hours";
    }
}
