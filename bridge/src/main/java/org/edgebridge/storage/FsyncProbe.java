package org.edgebridge.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * Measures how long the data dir takes to make a small write durable: {@link #SAMPLES} writes of 4 KiB into a file
 * of its own, each followed by an fdatasync (what SQLite does at every commit of the outbox), timed one by one. The
 * file is deleted afterwards. Takes a few milliseconds on a disk that syncs, up to a second or two on a very slow one.
 */
public final class FsyncProbe {
    /** The probe's file in the data dir; a leftover one (a power cut during the probe) is overwritten. */
    public static final String FILE = ".fsync-probe";

    static final int SAMPLES = 8;
    private static final int BLOCK = 4096;

    private FsyncProbe() {}

    /** The figures of one probe, in microseconds. */
    public record FsyncLatency(int samples, long medianMicros, long minMicros, long maxMicros) {
        static FsyncLatency of(long[] micros) {
            long[] sorted = micros.clone();
            Arrays.sort(sorted);
            return new FsyncLatency(sorted.length, sorted[sorted.length / 2], sorted[0], sorted[sorted.length - 1]);
        }
    }

    /** @throws IOException when the data dir cannot be written (the start then fails on the outbox anyway) */
    public static FsyncLatency measure(Path dataDir) throws IOException {
        Path file = dataDir.resolve(FILE);
        long[] micros = new long[SAMPLES];
        try (FileChannel c = FileChannel.open(
                file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            byte[] block = new byte[BLOCK];
            for (int i = 0; i < SAMPLES; i++) {
                Arrays.fill(block, (byte) i);
                c.write(ByteBuffer.wrap(block), (long) (i % 2) * BLOCK);
                long t0 = System.nanoTime();
                c.force(false);
                micros[i] = (System.nanoTime() - t0) / 1_000;
            }
        } finally {
            Files.deleteIfExists(file);
        }
        return FsyncLatency.of(micros);
    }
}
