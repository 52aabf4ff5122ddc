package org.edgebridge;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;

/**
 * One data dir, one bridge: an exclusive lock on {@code data.dir/bridge.lock}, taken before anything in the data
 * dir is touched and held until the bridge has closed. The operating system releases it when the process ends,
 * however it ends ({@code kill -9} included), so a stale lock file never blocks a start. The file names the
 * process that holds it, for the error a second process gets.
 */
final class DataDirLock implements AutoCloseable {
    static final String FILE = "bridge.lock";

    private final FileChannel channel;
    private final FileLock lock;

    private DataDirLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /** @throws IllegalStateException naming the data dir (and the process holding it) if another bridge has it */
    static DataDirLock acquire(Path dataDir) {
        Path file = dataDir.resolve(FILE);
        FileChannel channel;
        try {
            Files.createDirectories(dataDir);
            channel = FileChannel.open(
                    file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new IllegalStateException(
                    "data.dir=" + dataDir.toAbsolutePath() + ": cannot create " + FILE + " (" + e
                            + "); the bridge needs a data dir it can write",
                    e);
        }
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        } catch (IOException e) {
            close(channel);
            throw new IllegalStateException(
                    "data.dir=" + dataDir.toAbsolutePath() + ": cannot lock " + FILE + " (" + e + ")", e);
        }
        if (lock == null) {
            String holder = holder(channel);
            close(channel);
            throw new IllegalStateException(
                    "data.dir=" + dataDir.toAbsolutePath() + " is in use by another edge bridge (" + holder
                            + "); stop that one first, or give this one its own data.dir");
        }
        try {
            channel.truncate(0);
            channel.write(
                    ByteBuffer.wrap(("pid " + ProcessHandle.current().pid() + ", started " + Instant.now() + "\n")
                            .getBytes(StandardCharsets.UTF_8)),
                    0);
            channel.force(true); // its name is synced with the data dir's at the end of the start (Bridge)
        } catch (IOException e) {
            // the lock holds without the note; only the other process's error message is poorer
        }
        return new DataDirLock(channel, lock);
    }

    private static String holder(FileChannel channel) {
        try {
            ByteBuffer buf = ByteBuffer.allocate(200);
            int n = channel.read(buf, 0);
            String note = n <= 0 ? "" : new String(buf.array(), 0, n, StandardCharsets.UTF_8).strip();
            return note.isEmpty() ? "a process that did not say which" : note;
        } catch (IOException e) {
            return "a process that did not say which";
        }
    }

    private static void close(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // nothing to release
        }
    }

    @Override
    public void close() {
        try {
            lock.release();
        } catch (IOException e) {
            // released with the channel below
        }
        close(channel);
    }
}
