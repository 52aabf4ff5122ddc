package org.edgebridge.forecast;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * The bytes this process caused to be written to storage, from Linux's {@code /proc/self/io} ({@code write_bytes}:
 * what went to the block layer — SQLite's WAL, its checkpoints into the database file, the broker's store, the
 * logs — not what a write to a socket or to tmpfs sent). Empty where there is no such file (not Linux, or a kernel
 * without task I/O accounting).
 */
final class ProcessIo {
    private static final Path FILE = Path.of("/proc/self/io");

    private ProcessIo() {}

    static OptionalLong writeBytes() {
        try {
            return writeBytes(Files.readString(FILE));
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    /** {@code write_bytes} of a {@code /proc/<pid>/io} text. */
    static OptionalLong writeBytes(String io) {
        for (String line : io.split("\n")) {
            if (line.startsWith("write_bytes:")) {
                try {
                    return OptionalLong.of(Long.parseLong(
                            line.substring("write_bytes:".length()).trim()));
                } catch (NumberFormatException e) {
                    return OptionalLong.empty();
                }
            }
        }
        return OptionalLong.empty();
    }
}
