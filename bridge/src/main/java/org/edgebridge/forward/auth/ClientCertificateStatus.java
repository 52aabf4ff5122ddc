package org.edgebridge.forward.auth;

import java.time.Instant;
import java.util.Optional;

/**
 * The client certificate presented to central, as an admin sees it (never the key).
 *
 * @param reloads times a changed pair of files was taken into use since start
 * @param reloadProblem why the files as they are on disk now cannot be used (the previous pair is still presented)
 */
public record ClientCertificateStatus(
        String certFile,
        String keyFile,
        String subject,
        String issuer,
        String serial,
        Instant notBefore,
        Instant notAfter,
        Instant loadedAt,
        long reloads,
        Optional<String> reloadProblem,
        Optional<Instant> reloadProblemAt,
        long expiryWarningSeconds) {

    /** Expired at {@code now}. */
    public boolean expiredAt(Instant now) {
        return !now.isBefore(notAfter);
    }

    /** Within {@code ingest.certExpiryWarning} of its expiry at {@code now}, not yet expired. */
    public boolean expiringAt(Instant now) {
        return !expiredAt(now) && now.plusSeconds(expiryWarningSeconds).isAfter(notAfter);
    }
}
