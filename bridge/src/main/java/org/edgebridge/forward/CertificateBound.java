package org.edgebridge.forward;

import java.util.Optional;
import java.util.function.Function;
import org.edgebridge.forward.auth.ClientCertificate;
import org.edgebridge.forward.auth.ClientCertificateFiles;
import org.jspecify.annotations.Nullable;

/**
 * What a client to central makes for the client certificate it presents (a TLS context and what is built on it: the
 * JDK's HTTP client, or socket factories), made again when the pair on disk changed: the files are looked at before
 * each request ({@link ClientCertificateFiles#current()}), so a pair rotated on disk gets a new TLS context and no
 * pooled connection or resumable session of the old certificate. Without {@code ingest.certFile} it is made once.
 * Made at the first {@link #get()}. Thread-safe.
 */
final class CertificateBound<T> {
    /** A thing made and the client certificate its TLS context presents (null: none). */
    private record Made<T>(T value, @Nullable ClientCertificate presented) {}

    private final Optional<ClientCertificateFiles> certificates;
    private final Function<Optional<ClientCertificate>, T> make;
    private volatile @Nullable Made<T> made;

    /** @param make makes the thing for a client certificate (empty: none) */
    CertificateBound(Optional<ClientCertificateFiles> certificates, Function<Optional<ClientCertificate>, T> make) {
        this.certificates = certificates;
        this.make = make;
    }

    /** The thing for the next request: made again first when the client certificate on disk changed. */
    T get() {
        Made<T> now = made;
        ClientCertificate onDisk =
                certificates.map(ClientCertificateFiles::current).orElse(null);
        if (now != null && now.presented() == onDisk) {
            return now.value();
        }
        synchronized (this) {
            Made<T> again = made;
            if (again == null || again.presented() != onDisk) {
                again = new Made<>(make.apply(Optional.ofNullable(onDisk)), onDisk);
                made = again;
            }
            return again.value();
        }
    }

    /**
     * The client certificate presented, when it has expired: with TLS 1.3 a server checks it after the client's
     * handshake is done, and its refusal often reaches the client as a reset or closed connection; the bridge knows
     * better than that.
     */
    Optional<ClientCertificate> expiredPresented() {
        Made<T> now = made;
        ClientCertificate presented = now == null ? null : now.presented();
        return presented != null && certificates.get().expired(presented) ? Optional.of(presented) : Optional.empty();
    }
}
