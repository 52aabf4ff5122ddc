package org.edgebridge.broker.moquette;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The broker cannot run because the disk of its store has no room: its H2 store cannot write a commit, nor
 * {@link BrokerStoreRepair} its copy. The store itself is as its last commit left it, so it is not set aside (its
 * sessions come back once there is room); {@link MoquetteBroker} waits for room and tries again.
 *
 * <p>A disk has no room for the store when a write failed with ENOSPC or EDQUOT, or when less than the store's size
 * plus {@link #MARGIN_BYTES} is free: the repair copies the store before it starts, and the error's text is the C
 * library's, in the system's language.
 */
final class BrokerStoreDiskFull extends IllegalStateException {
    /** What Linux's strerror says for ENOSPC and EDQUOT in English. */
    private static final Set<String> NO_ROOM = Set.of("no space left on device", "disk quota exceeded");

    /** Room beyond the store's size that a start needs: the repair's copy, then commits. */
    static final long MARGIN_BYTES = 16L << 20;

    private BrokerStoreDiskFull(Path storeDir, String why, boolean storeKept, Throwable cause) {
        super(
                "the disk of the broker store " + storeDir + " is full (" + why + "): the MQTT broker cannot write "
                        + "its sessions and cannot run; it starts once there is room"
                        + (storeKept
                                ? ", with the devices' sessions kept (the store is not set aside)"
                                : " (on an empty store: the refused one was set aside)")
                        + ". Free space on that disk (another process filled it: the outbox keeps outbox.minFreeDisk"
                        + " free)",
                cause);
    }

    /**
     * {@code error} as a full disk: it, a cause or what they suppressed says ENOSPC or EDQUOT, or it is an I/O error
     * while the disk has no room for the store ({@link #hasRoom}).
     *
     * @param storeKept whether the store in {@code storeDir} is the one the sessions are in (not a new, empty one)
     */
    static Optional<BrokerStoreDiskFull> of(Path storeDir, Throwable error, boolean storeKept) {
        Optional<String> said = noRoom(error, 0);
        if (said.isPresent()) {
            return Optional.of(new BrokerStoreDiskFull(storeDir, said.get(), storeKept, error));
        }
        if (ioError(error, 0) && !hasRoom(storeDir)) {
            return Optional.of(new BrokerStoreDiskFull(storeDir, room(storeDir), storeKept, error));
        }
        return Optional.empty();
    }

    /** A store that failed with no room on its disk, whatever the failure said. */
    static BrokerStoreDiskFull noRoomNow(Path storeDir, Throwable error) {
        return new BrokerStoreDiskFull(storeDir, room(storeDir), true, error);
    }

    /** Whether the disk of {@code storeDir} has the store's size plus {@link #MARGIN_BYTES} free (true if unknown). */
    static boolean hasRoom(Path storeDir) {
        try {
            return Files.getFileStore(storeDir).getUsableSpace() >= storeBytes(storeDir) + MARGIN_BYTES;
        } catch (IOException | RuntimeException e) {
            return true;
        }
    }

    private static String room(Path storeDir) {
        try {
            return Files.getFileStore(storeDir).getUsableSpace() + " bytes free; a start needs the store's "
                    + storeBytes(storeDir) + " and " + MARGIN_BYTES + " more";
        } catch (IOException | RuntimeException e) {
            return "free space unknown: " + e;
        }
    }

    private static long storeBytes(Path storeDir) throws IOException {
        Path store = storeDir.resolve(BrokerStoreRepair.STORE_FILE);
        return Files.exists(store) ? Files.size(store) : 0;
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

    private static boolean ioError(Throwable error, int depth) {
        if (depth > 20) {
            return false;
        }
        if (error instanceof IOException) {
            return true;
        }
        for (Throwable suppressed : error.getSuppressed()) {
            if (ioError(suppressed, depth + 1)) {
                return true;
            }
        }
        Throwable cause = error.getCause();
        return cause != null && cause != error && ioError(cause, depth + 1);
    }
}
