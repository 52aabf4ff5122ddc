package org.edgebridge.intake;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;

/** Free space on the outbox's file system, read at most once a second. Thread-safe. */
final class DiskSpace {
    private static final long REFRESH_NANOS = 1_000_000_000L;

    private final Path dir;
    private long readAt = System.nanoTime() - REFRESH_NANOS;
    private long usable = Long.MAX_VALUE;

    DiskSpace(Path dir) {
        this.dir = dir;
    }

    synchronized long usableBytes() {
        long now = System.nanoTime();
        if (now - readAt >= REFRESH_NANOS) {
            readAt = now;
            try {
                FileStore store = Files.getFileStore(dir);
                usable = store.getUsableSpace();
            } catch (IOException e) {
                usable = 0;
            }
        }
        return usable;
    }
}
