package org.edgebridge;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * {@code data.dir} holds every payload (the outbox, the broker store, receipts queued for devices) and generated
 * keys: it and everything in it belong to the bridge's user alone, whatever the umask. The directory is made mode
 * 700 (so a file created later inside it, whatever its own mode, cannot be reached by another user), every
 * directory in it 700 and every file 600; what an older version or another umask left open is tightened at each
 * start. Symbolic links are not followed. Without POSIX file modes (Windows) nothing is done.
 */
final class PrivateDataDir {
    static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");
    static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");

    private PrivateDataDir() {}

    private static boolean posix() {
        return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    }

    /** Creates {@code dataDir} (mode 700) if missing, then makes it and everything in it owner-only. */
    static void restrict(Path dataDir) {
        if (!posix()) {
            return;
        }
        Path dir = dataDir.toAbsolutePath();
        try {
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(DIRECTORY));
            }
            List<Path> all;
            try (Stream<Path> walk = Files.walk(dir)) {
                all = walk.toList();
            }
            for (Path p : all) {
                if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                    set(p, DIRECTORY);
                } else if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                    set(p, FILE);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("data.dir=" + dir + ": cannot make it owner-only (" + e
                    + "); give the bridge's user a data dir of its own (chown -R it to that user)", e);
        }
    }

    /**
     * The outbox file: made mode 600 before SQLite opens it (SQLite gives its -wal and -shm files the database
     * file's mode), so that it is never readable by others, not even for a moment.
     */
    static void createOwnerOnly(Path file) {
        if (!posix() || Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(FILE));
        } catch (IOException e) {
            throw new UncheckedIOException("data.dir: cannot create " + file + " readable by its owner only: " + e.getMessage(), e);
        }
    }

    private static void set(Path p, Set<PosixFilePermission> mode) throws IOException {
        if (!Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS).equals(mode)) {
            Files.setPosixFilePermissions(p, mode);
        }
    }
}
