package org.edgebridge.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.edgebridge.storage.Fsync;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Client ids that must bring their client certificate on every listener (docs/device-security.md, "No
 * impersonation across listeners"): those that match {@code auth.certificateClientIds}, and every client id that has
 * once connected with a certificate naming it, remembered durably in {@code data.dir/certificate-devices} (one id a
 * line, appended and synced when first seen; kept outside the broker store, which a reset sets aside). So an
 * anonymous or password client can never take over the session of a device that uses mTLS.
 *
 * <p>Bounded: at most {@code auth.maxCertificateDevices} ids (a line is at most 128 characters, 513 bytes), only
 * ids a certificate from {@code tls.caFile} vouched for; past it new ids are not remembered (counted, logged, on the
 * status page). Thread-safe.
 */
public final class CertificateDevices {
    private static final Logger LOG = LoggerFactory.getLogger(CertificateDevices.class);

    private final Path file;
    private final int max;
    private final Optional<Pattern> pattern;
    private final Set<String> ids = ConcurrentHashMap.newKeySet();
    private final AtomicLong notRemembered = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();

    private CertificateDevices(Path file, int max, Optional<Pattern> pattern) {
        this.file = file;
        this.max = max;
        this.pattern = pattern;
    }

    /** Reads the ids remembered by earlier runs (at most {@code max}; a file made longer by hand is cut there). */
    public static CertificateDevices load(Path file, int max, Optional<Pattern> pattern) {
        CertificateDevices devices = new CertificateDevices(file, max, pattern);
        if (Files.exists(file)) {
            try (var lines = Files.lines(file, StandardCharsets.UTF_8)) {
                lines.filter(Topics::isUsableClientId).limit(max).forEach(devices.ids::add);
            } catch (IOException | UncheckedIOException e) {
                throw new IllegalStateException(
                        "data.dir: cannot read " + file + " (the client ids that need their client certificate): "
                                + e.getMessage() + "; make it readable, or delete it to forget them",
                        e);
            }
        }
        return devices;
    }

    /** True when {@code clientId} may connect only with a client certificate that names it. */
    public boolean needsCertificate(String clientId) {
        return ids.contains(clientId)
                || pattern.map(p -> p.matcher(clientId).matches()).orElse(false);
    }

    /** A certificate named this client id: from now on it needs one (unless the list is full). */
    public void remember(String clientId) {
        if (ids.contains(clientId)) {
            return;
        }
        synchronized (this) {
            if (ids.contains(clientId)) {
                return;
            }
            if (ids.size() >= max) {
                if (notRemembered.getAndIncrement() == 0) {
                    LOG.warn(
                            "auth.maxCertificateDevices={} client ids that connected with a certificate are remembered "
                                    + "already: {} and later ones are not, so they are not protected from "
                                    + "impersonation on a listener without certificates; raise "
                                    + "auth.maxCertificateDevices or set auth.certificateClientIds",
                            max,
                            RefusalLog.quote(clientId));
                }
                return;
            }
            ids.add(clientId);
            try {
                boolean created = !Files.exists(file);
                Files.writeString(
                        file,
                        clientId + "\n",
                        StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND,
                        StandardOpenOption.SYNC);
                if (created) {
                    Fsync.written(file); // a new file's name survives a power cut once its directory is synced
                }
            } catch (IOException e) {
                LOG.warn(
                        "cannot write {} ({}): {} needs its certificate until the bridge stops, but not after a "
                                + "restart",
                        file,
                        e.getMessage(),
                        RefusalLog.quote(clientId));
            }
        }
    }

    /** Counts a CONNECT refused because it came without the certificate its client id needs. */
    public void refused() {
        refused.incrementAndGet();
    }

    public int remembered() {
        return ids.size();
    }

    public int max() {
        return max;
    }

    /** Client ids that connected with a certificate but were not remembered because the list was full. */
    public long notRemembered() {
        return notRemembered.get();
    }

    /** CONNECTs refused because they came without the certificate their client id needs. */
    public long refusedWithoutCertificate() {
        return refused.get();
    }
}
