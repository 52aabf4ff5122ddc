package org.edgebridge;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

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

    /** Creates {@code dataDir} with mode 700 if it is missing (before the lock, so that it is never open to others). */
    static void create(Path dataDir) {
        if (!posix() || Files.isDirectory(dataDir)) {
            return;
        }
        try {
            Files.createDirectories(dataDir.toAbsolutePath(), PosixFilePermissions.asFileAttribute(DIRECTORY));
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "data.dir=" + dataDir.toAbsolutePath() + ": cannot create it (" + e
                            + "); the bridge needs a data dir it can write",
                    e);
        }
    }

    /**
     * Makes {@code dataDir} and everything in it owner-only. Called with the data dir's lock held; a file that
     * disappears meanwhile (a part of the running bridge deleted it) is skipped.
     */
    static void restrict(Path dataDir) {
        if (!posix()) {
            return;
        }
        Path dir = dataDir.toAbsolutePath();
        try {
            // the real path: a data.dir that is a symbolic link is restricted where it points (links inside are not
            // followed)
            Files.walkFileTree(dir.toRealPath(), new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) throws IOException {
                    return set(d, DIRECTORY) ? FileVisitResult.CONTINUE : FileVisitResult.SKIP_SUBTREE;
                }

                @Override
                public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) throws IOException {
                    if (attrs.isRegularFile()) {
                        set(f, FILE);
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path f, IOException e) throws IOException {
                    if (e instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE;
                    }
                    throw e;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "data.dir=" + dir + ": cannot make it owner-only (" + e
                            + "); give the bridge's user a data dir of its own (chown -R it to that user)",
                    e);
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
            throw new UncheckedIOException(
                    "data.dir: cannot create " + file + " readable by its owner only: " + e.getMessage(), e);
        }
    }

    /** @return false when {@code p} is gone */
    private static boolean set(Path p, Set<PosixFilePermission> mode) throws IOException {
        try {
            if (!Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS).equals(mode)) {
                Files.setPosixFilePermissions(p, mode);
            }
            return true;
        } catch (NoSuchFileException gone) {
            return false;
        }
    }
}
