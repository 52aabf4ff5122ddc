package org.edgebridge.faults;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A directory on which a power cut can be played: {@code powercutfs} ({@code src/test/powercut/powercutfs.c}, a FUSE
 * file system built here against Debian's libfuse3 with gcc) mounted over a backing directory. Data written is kept
 * in the backing directory's {@code live/} copy; what is durable is what was fsync'd (a file's data) and what a
 * fsync of a directory recorded (its entries). {@link #cut()} drops everything else: the files become what they
 * were at their last sync, and handles opened before the cut fail with EIO. The semantics, unit-tested in
 * {@code PowerCutFsTest}, are LazyFS's. Owns the file system's process; {@link #close()} unmounts.
 *
 * <p>Needs {@code /dev/fuse}, {@code fusermount3} (Debian fuse3), {@code gcc} and {@code pkg-config} with
 * {@code libfuse3-dev}; {@code .ci/run} installs them.
 */
final class PowerCutFs implements AutoCloseable {
    private static final Path SOURCE = Path.of("src/test/powercut/powercutfs.c");
    private static final Path BINARY = Path.of("target/powercutfs/powercutfs");

    private final Path mountPoint;
    private final Process process;

    private PowerCutFs(Path mountPoint, Process process) {
        this.mountPoint = mountPoint;
        this.process = process;
    }

    /** Mounts a power-cut file system at {@code mountPoint} over {@code backing} (both made if missing). */
    static PowerCutFs mount(Path backing, Path mountPoint) throws IOException, InterruptedException {
        Path binary = build();
        Files.createDirectories(backing);
        Files.createDirectories(mountPoint);
        Path log = backing.resolveSibling(backing.getFileName() + ".log");
        Process p = new ProcessBuilder(
                        binary.toAbsolutePath().toString(),
                        backing.toAbsolutePath().toString(),
                        mountPoint.toAbsolutePath().toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        PowerCutFs fs = new PowerCutFs(mountPoint.toAbsolutePath(), p);
        try {
            await("powercutfs mounted at " + mountPoint)
                    .atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        if (!p.isAlive()) {
                            throw new IllegalStateException("powercutfs exited with " + p.exitValue() + ": "
                                    + Files.readString(log, StandardCharsets.UTF_8));
                        }
                        return fs.mounted();
                    });
        } catch (RuntimeException e) {
            fs.close();
            throw e;
        }
        return fs;
    }

    Path root() {
        return mountPoint;
    }

    /** Drops everything that was not synced; returns once the file system serves what was. */
    void cut() throws IOException {
        Files.writeString(mountPoint.resolve(".powercut"), "cut", StandardCharsets.US_ASCII);
    }

    private boolean mounted() throws IOException {
        String target = " " + mountPoint + " ";
        return Files.readAllLines(Path.of("/proc/self/mountinfo")).stream().anyMatch(l -> l.contains(target));
    }

    /** Builds the helper once per build (again when its source is newer than the binary). */
    static synchronized Path build() throws IOException, InterruptedException {
        if (Files.exists(BINARY)
                && Files.getLastModifiedTime(BINARY).compareTo(Files.getLastModifiedTime(SOURCE)) >= 0) {
            return BINARY;
        }
        Files.createDirectories(BINARY.getParent());
        String flags = run(List.of("pkg-config", "--cflags", "--libs", "fuse3")).strip();
        List<String> cmd =
                new java.util.ArrayList<>(List.of("gcc", "-O2", "-Wall", "-o", BINARY.toString(), SOURCE.toString()));
        cmd.addAll(List.of(flags.split("\\s+")));
        run(cmd);
        return BINARY;
    }

    private static String run(List<String> cmd) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IOException(
                    cmd.get(0) + " is missing: the power-cut file system needs gcc, pkg-config and "
                            + "libfuse3-dev (apt-get install build-essential pkg-config libfuse3-dev fuse3)",
                    e);
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + out);
        }
        return out;
    }

    @Override
    public void close() {
        try {
            Process u = new ProcessBuilder("fusermount3", "-u", "-z", mountPoint.toString())
                    .redirectErrorStream(true)
                    .start();
            u.getInputStream().readAllBytes();
            u.waitFor(20, TimeUnit.SECONDS);
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (IOException e) {
            process.destroyForcibly();
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
