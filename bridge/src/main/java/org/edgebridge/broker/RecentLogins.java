package org.edgebridge.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Client ids whose password was verified, by this run or an earlier one: their password checks wait in a lane of
 * their own ({@link DeviceLogin}), so a flood of strangers' checks cannot keep them out, also right after a restart,
 * when the verified cache is empty. Kept in {@code data.dir/recent-logins}, one id a line, appended when an id is
 * first verified (not synced: an id lost to a power cut only waits in the strangers' lane until its next login).
 *
 * <p>Bounded: at most {@code max} ids ({@code mqtt.maxKnownDevices}; a line is at most 513 bytes); past it new ids
 * are not remembered. Only a verified password adds an id, so an outsider cannot fill it. Thread-safe.
 */
final class RecentLogins {
    private static final Logger LOG = LoggerFactory.getLogger(RecentLogins.class);

    private final Path file;
    private final int max;
    private final Set<String> ids = ConcurrentHashMap.newKeySet();
    private volatile boolean writeFailed;

    private RecentLogins(Path file, int max) {
        this.file = file;
        this.max = max;
    }

    /**
     * Reads the ids of earlier runs; a file that cannot be read is logged and started afresh (nothing depends on it).
     */
    static RecentLogins load(Path file, int max) {
        RecentLogins logins = new RecentLogins(file, max);
        if (Files.exists(file)) {
            try (var lines = Files.lines(file, StandardCharsets.UTF_8)) {
                lines.filter(Topics::isUsableClientId).limit(max).forEach(logins.ids::add);
            } catch (IOException | UncheckedIOException e) {
                LOG.warn(
                        "cannot read {} ({}): every device waits in the strangers' lane for its first password check",
                        file,
                        e.getMessage());
            }
        }
        return logins;
    }

    boolean contains(String clientId) {
        return ids.contains(clientId);
    }

    /** The password of this client id was verified. */
    void verified(String clientId) {
        if (ids.contains(clientId) || ids.size() >= max) {
            return;
        }
        synchronized (this) {
            if (!ids.add(clientId)) {
                return;
            }
            try {
                Files.writeString(
                        file,
                        clientId + "\n",
                        StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            } catch (IOException e) {
                if (!writeFailed) {
                    writeFailed = true;
                    LOG.warn(
                            "cannot write {} ({}): client ids verified from now on are not remembered after a restart",
                            file,
                            e.getMessage());
                }
            }
        }
    }

    int size() {
        return ids.size();
    }
}
