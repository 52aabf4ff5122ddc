package org.edgebridge.forward.auth;

import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client certificate as the files on disk hold it now: {@link #current()} stats both files (cheap) and reads them
 * again when either changed, so a certificate rotated on site is presented from the next request on, without a
 * restart. A changed pair that cannot be used (half written, a key that does not match, a key file others may
 * read) is not taken: the previous pair stays in use, the problem is shown ({@link #status()}) and logged once, and
 * the files are read again when they change again. Thread-safe.
 */
public final class ClientCertificateFiles {
    private static final Logger LOG = LoggerFactory.getLogger(ClientCertificateFiles.class);

    private final ClientCertificateSettings settings;
    private final Clock clock;
    private final AtomicLong reloads = new AtomicLong();
    private volatile ClientCertificate current;
    private volatile Instant loadedAt;
    /** The stamp of the files last tried, used or not: they are read again only when it changes. */
    private volatile FileStamp tried;

    private volatile @Nullable String problem;
    private volatile @Nullable Instant problemAt;

    /** Reads the pair. @throws IllegalArgumentException when it cannot be used (check-config says why first) */
    public ClientCertificateFiles(ClientCertificateSettings settings, Clock clock) {
        this.settings = settings;
        this.clock = clock;
        this.current = ClientCertificate.load(settings.certFile(), settings.keyFile());
        this.tried = current.stamp();
        this.loadedAt = clock.instant();
    }

    /** The pair to present now: read again first if the files changed since they were last read. */
    public ClientCertificate current() {
        FileStamp now = FileStamp.of(settings.certFile(), settings.keyFile());
        if (!now.equals(tried)) {
            reload(now);
        }
        return current;
    }

    private synchronized void reload(FileStamp now) {
        if (now.equals(tried)) {
            return; // another thread just did
        }
        tried = now;
        try {
            ClientCertificate next = ClientCertificate.load(settings.certFile(), settings.keyFile());
            ClientCertificate before = current;
            current = next;
            loadedAt = clock.instant();
            reloads.incrementAndGet();
            problem = null;
            problemAt = null;
            LOG.info(
                    "client certificate for central reloaded from {}: {} serial {} valid until {} (was serial {}, "
                            + "until {})",
                    settings.certFile(),
                    next.subject(),
                    next.serial(),
                    next.notAfter(),
                    before.serial(),
                    before.notAfter());
        } catch (IllegalArgumentException e) {
            String message = Objects.requireNonNullElse(e.getMessage(), e.toString()); // load names each problem
            if (!message.equals(problem)) {
                LOG.warn(
                        "client certificate files changed but cannot be used, the previous certificate (serial {}) is "
                                + "still presented: {}",
                        current.serial(),
                        message);
            }
            problem = message;
            problemAt = clock.instant();
        }
    }

    /** Whether {@code certificate} has expired by now. */
    public boolean expired(ClientCertificate certificate) {
        return !clock.instant().isBefore(certificate.notAfter());
    }

    public ClientCertificateStatus status() {
        ClientCertificate c = current;
        return new ClientCertificateStatus(
                settings.certFile().toString(),
                settings.keyFile().toString(),
                c.subject(),
                c.leaf().getIssuerX500Principal().getName(),
                c.serial(),
                c.leaf().getNotBefore().toInstant(),
                c.notAfter(),
                loadedAt,
                reloads.get(),
                Optional.ofNullable(problem),
                Optional.ofNullable(problemAt),
                settings.expiryWarning().toSeconds());
    }
}
