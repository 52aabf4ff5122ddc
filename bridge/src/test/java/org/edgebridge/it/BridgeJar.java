package org.edgebridge.it;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The product jar the integration tests start as a child JVM ({@code -Dbridge.jar}, set by bridge/pom.xml), and the
 * command that starts it: {@code java -Xmx… [class data sharing] -jar edge-bridge.jar}.
 *
 * <p><b>Class data sharing.</b> The suite starts the bridge about a hundred times (kill -9 loops, restarts, crash
 * windows), and a JVM that loads the jar's classes from scratch spends ~4 s and more CPU than that before it is ready
 * on this 2-core machine. An application class-data archive of the jar (JDK 17's dynamic archive, {@code
 * -XX:ArchiveClassesAtExit}) brings it to ~2.5 s. The archive is made once per build of the jar, by the first test
 * that starts the bridge in any test JVM (a file lock keeps the others waiting for it): a bridge started on a scratch
 * data dir until ready, then stopped with SIGTERM. It changes how classes are loaded, nothing the bridge does; the
 * service unit and the benchmarks start the jar without it. When it cannot be made, or the JVM refuses it (another
 * JDK, other GC flags), the bridge starts without it, as before.
 */
public final class BridgeJar {
    private static final Object MAKING = new Object();
    private static volatile List<String> sharing;

    private BridgeJar() {}

    /** The jar; fails with what to do when it was not built. */
    public static Path path() {
        Path jar = Path.of(System.getProperty("bridge.jar", "target/edge-bridge.jar"))
                .toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(
                    jar + " is missing: run the tests with 'mvn verify', which builds it first");
        }
        return jar;
    }

    /**
     * {@code java -Xmx<heap> <class data sharing> [jvmArgs] -jar edge-bridge.jar}: what follows is the command and its
     * arguments.
     */
    public static List<String> command(String heap, List<String> jvmArgs) {
        List<String> command = new ArrayList<>();
        command.add(java());
        command.add("-Xmx" + heap);
        command.addAll(classDataSharing());
        command.addAll(jvmArgs);
        command.add("-jar");
        command.add(path().toString());
        return command;
    }

    /** The JVM flags that use the jar's class-data archive, made on first use; none when it cannot be had. */
    static List<String> classDataSharing() {
        List<String> s = sharing;
        if (s == null) {
            synchronized (MAKING) {
                s = sharing;
                if (s == null) {
                    s = archive()
                            .map(a -> List.of("-XX:SharedArchiveFile=" + a, "-Xlog:cds=off,cds+dynamic=off"))
                            .orElse(List.of());
                    sharing = s;
                }
            }
        }
        return s;
    }

    private static java.util.Optional<Path> archive() {
        Path jar = path();
        try {
            // named after the jar's size and time: a jar built again gets an archive of its own
            Path archive = jar.resolveSibling("edge-bridge-" + Files.size(jar) + "-"
                    + Files.getLastModifiedTime(jar).toMillis() + ".jsa");
            try (RandomAccessFile lockFile = new RandomAccessFile(
                            jar.resolveSibling("edge-bridge.jsa.lock").toFile(), "rw");
                    FileLock ignored = lockFile.getChannel().lock()) {
                if (!Files.isRegularFile(archive)) {
                    make(jar, archive);
                }
            }
            return java.util.Optional.of(archive);
        } catch (IOException | RuntimeException e) {
            System.out.println("BridgeJar: no class-data archive, the bridge starts without one: " + e);
            return java.util.Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return java.util.Optional.empty();
        }
    }

    /** Starts the bridge with -XX:ArchiveClassesAtExit on a scratch data dir, waits until it is ready, stops it. */
    private static void make(Path jar, Path archive) throws IOException, InterruptedException {
        Path scratch = Files.createTempDirectory(archive.getParent(), "cds-scratch");
        Path partial = scratch.resolve("archive.jsa"); // beside the archive: the move below is atomic
        Path log = BridgeProcess.logFile("class-data-archive");
        List<String> command = List.of(
                java(),
                "-Xmx256m",
                "-XX:ArchiveClassesAtExit=" + partial,
                "-jar",
                jar.toString(),
                "run",
                "--set",
                "data.dir=" + scratch.resolve("data"),
                "--set",
                "mqtt.host=127.0.0.1",
                "--set",
                "mqtt.port=any",
                "--set",
                "admin.port=any",
                "--set",
                "auth.anonymous=true",
                "--set",
                "ingest.url=http://127.0.0.1:9/ingest");
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!Files.readString(log).contains("bound ports:")) {
                if (!p.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("the bridge did not start to make the archive; log: " + log);
                }
                p.waitFor(100, TimeUnit.MILLISECONDS);
            }
            p.destroy(); // SIGTERM: a clean exit writes the archive
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException(
                        "the bridge did not stop within 60 s to write the archive; log: " + log);
            }
        } finally {
            p.destroyForcibly();
        }
        if (!Files.isRegularFile(partial)) {
            throw new IllegalStateException("the JVM wrote no archive; log: " + log);
        }
        Files.move(partial, archive, StandardCopyOption.ATOMIC_MOVE);
        System.out.println("BridgeJar: class-data archive " + archive + " (" + Files.size(archive) / 1024 + " KiB)");
        deleteTree(scratch);
    }

    private static void deleteTree(Path dir) throws IOException {
        try (java.util.stream.Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
