package org.edgebridge.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;

/**
 * fsync of a file or a directory: a power cut keeps a file's data only once the file was synced, and a new name (a
 * created file, a rename, a new directory) only once its directory was synced. On a system where a directory cannot
 * be opened (Windows) a directory's sync does nothing.
 */
public final class Fsync {
    private Fsync() {}

    /** Makes the data of {@code file} durable (all of it, whoever wrote it). */
    public static void file(Path file) throws IOException {
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.READ)) {
            c.force(true);
        }
    }

    /** Makes the entries of {@code dir} durable: the files created, renamed or deleted in it. */
    public static void directory(Path dir) throws IOException {
        FileChannel c;
        try {
            c = FileChannel.open(dir, StandardOpenOption.READ);
        } catch (IOException e) {
            if (System.getProperty("os.name", "").startsWith("Windows")) {
                return; // a directory cannot be opened there; NTFS journals its names
            }
            throw e;
        }
        try (c) {
            c.force(true);
        }
    }

    /** A file just written (or renamed into place): its data, then its name in its directory. */
    public static void written(Path file) throws IOException {
        file(file);
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null) {
            directory(dir);
        }
    }

    /** A directory that may be new: its entries, and its own name in its parent. */
    public static void newDirectory(Path dir) throws IOException {
        directory(dir);
        Path parent = dir.toAbsolutePath().getParent();
        if (parent != null) {
            directory(parent);
        }
    }

    /**
     * Every directory from {@code root} down (not following links), and {@code root}'s parent: after a start that
     * created files and directories, each of them keeps its name through a power cut.
     */
    public static void directories(Path root) throws IOException {
        List<Path> dirs;
        try (Stream<Path> walk = Files.walk(root)) {
            dirs = walk.filter(p -> Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS))
                    .toList();
        }
        for (Path d : dirs) {
            directory(d);
        }
        Path parent = root.toAbsolutePath().getParent();
        if (parent != null) {
            directory(parent);
        }
    }
}
