package org.edgebridge.intake;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongSupplier;

/**
 * Room for the outbox, read at most once a second: free space on its file system, and the outbox file's own free pages
 * (SQLite reuses them before the file grows: the pages of purged rows and dropped payloads). Thread-safe.
 */
final class DiskSpace {
    private static final long REFRESH_NANOS = 1_000_000_000L;

    private final Path dir;
    private final LongSupplier freePages;
    private long readAt = System.nanoTime() - REFRESH_NANOS;
    private long usable = Long.MAX_VALUE;

    /** @param freePages bytes of the outbox file's free pages */
    DiskSpace(Path dir, LongSupplier freePages) {
        this.dir = dir;
        this.freePages = freePages;
    }

    synchronized long usableBytes() {
        long now = System.nanoTime();
        if (now - readAt >= REFRESH_NANOS) {
            readAt = now;
            try {
                FileStore store = Files.getFileStore(dir);
                usable = store.getUsableSpace() + pagesOrNone();
            } catch (IOException e) {
                usable = 0;
            }
        }
        return usable;
    }

    private long pagesOrNone() {
        try {
            return Math.max(0, freePages.getAsLong());
        } catch (RuntimeException e) {
            return 0; // the file cannot be read now: its free pages are not counted
        }
    }
}
