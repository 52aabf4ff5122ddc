package org.edgebridge.broker.moquette;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The broker could not start because the disk of its store is full (ENOSPC, or a quota: EDQUOT): its H2 store
 * cannot write a commit, nor {@link BrokerStoreRepair} its copy. The store itself is as the last commit left it, so
 * it is not set aside (its sessions come back once there is room); {@link MoquetteBroker} tries again until then.
 */
final class BrokerStoreDiskFull extends IllegalStateException {
    /** What Linux's strerror says for ENOSPC and EDQUOT, as Java's I/O exceptions carry it. */
    private static final Set<String> NO_ROOM = Set.of("no space left on device", "disk quota exceeded");

    private BrokerStoreDiskFull(Path storeDir, String noRoom, Throwable cause) {
        super(
                "the disk of the broker store " + storeDir + " is full (" + noRoom + "): the MQTT broker cannot write "
                        + "its sessions and cannot run; it starts once there is room, with the devices' sessions kept (the "
                        + "store is not set aside). Free space on that disk (another process filled it: the outbox keeps "
                        + "outbox.minFreeDisk free)",
                cause);
    }

    /** {@code error} as a full disk, when it, one of its causes or what they suppressed is a disk without room. */
    static Optional<BrokerStoreDiskFull> of(Path storeDir, Throwable error) {
        return noRoom(error, 0).map(message -> new BrokerStoreDiskFull(storeDir, message, error));
    }

    private static Optional<String> noRoom(Throwable error, int depth) {
        if (depth > 20) {
            return Optional.empty();
        }
        String message = error.getMessage();
        if (error instanceof IOException
                && message != null
                && NO_ROOM.stream().anyMatch(message.toLowerCase(Locale.ROOT)::contains)) {
            return Optional.of(message);
        }
        for (Throwable suppressed : error.getSuppressed()) {
            Optional<String> found = noRoom(suppressed, depth + 1);
            if (found.isPresent()) {
                return found;
            }
        }
        Throwable cause = error.getCause();
        return cause == null || cause == error ? Optional.empty() : noRoom(cause, depth + 1);
    }
}
