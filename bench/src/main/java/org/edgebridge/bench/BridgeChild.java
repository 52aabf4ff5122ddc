package org.edgebridge.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The bridge as a separate JVM (so that its heap, RSS and CPU are its own), started from the running jar with the JVM
 * flags of the shipped service unit ({@code broker-config/edge-bridge.service}), as a site runs it.
 */
final class BridgeChild implements AutoCloseable {
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    /** {@code JAVA_OPTS} of broker-config/edge-bridge.service, but for the logback file of an installed site. */
    static final List<String> SITE_JVM_FLAGS =
            List.of("-Xms128m", "-Xmx512m", "-XX:+UseG1GC", "-XX:+ExitOnOutOfMemoryError");

    private final Process process;
    final int adminPort;
    final long startedNanos = System.nanoTime();

    BridgeChild(Path log, int adminPort, List<String> sets) throws IOException {
        this.adminPort = adminPort;
        List<String> args =
                new ArrayList<>(List.of("-jar", jar().toString(), "run", "--set", "admin.port=" + adminPort));
        for (String s : sets) {
            args.add("--set");
            args.add(s);
        }
        process = startJvm(SITE_JVM_FLAGS, args, log);
    }

    /**
     * Starts {@code java} (this JVM's) with these flags and arguments, its output appended to {@code log}; the child
     * is killed when the bench's JVM ends, even by a signal.
     */
    static Process startJvm(List<String> jvmFlags, List<String> args, Path log) throws IOException {
        List<String> cmd = new ArrayList<>(
                List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(jvmFlags);
        cmd.addAll(args);
        Process child = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        // a bench stopped by a signal does not reach close(): the child goes with it, not on, holding a port and CPU
        Runtime.getRuntime().addShutdownHook(new Thread(child::destroyForcibly, "bench-child-reaper"));
        return child;
    }

    /** The product jar: {@code -Dbridge.jar}, else {@code bridge/target/edge-bridge.jar} from the repository's top. */
    static Path jar() {
        String configured = System.getProperty("bridge.jar");
        Path jar = Path.of(configured != null ? configured : "bridge/target/edge-bridge.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(
                    jar.toAbsolutePath() + " not found: run the bench from the repository's top after "
                            + "mvn package, or pass -Dbridge.jar=PATH");
        }
        return jar;
    }

    /** Waits for {@code /health/ready}; @return seconds from process start to ready */
    double awaitReady(Duration atMost) throws InterruptedException {
        long deadline = System.nanoTime() + atMost.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("bridge process exited with " + process.exitValue());
            }
            try {
                HttpResponse<String> r = HTTP.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/health/ready"))
                                .timeout(Duration.ofSeconds(2))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return (System.nanoTime() - startedNanos) / 1e9;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("bridge not ready within " + atMost);
    }

    long pid() {
        return process.pid();
    }

    String metrics() throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/metrics"))
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("the bridge's /metrics answered " + r.statusCode());
        }
        return r.body();
    }

    /** Heap in use after a full GC (jcmd GC.run, then the bridge's own JVM metrics), in MiB. */
    double heapAfterGcMib() throws IOException, InterruptedException {
        Process gc = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                        String.valueOf(pid()),
                        "GC.run")
                .redirectErrorStream(true)
                .start();
        gc.getInputStream().readAllBytes();
        gc.waitFor(60, TimeUnit.SECONDS);
        return PathCounters.sum(metrics(), "jvm_memory_used_bytes{area=\"heap\"") / (1024 * 1024);
    }

    /** CPU time the process used so far, user and system, in seconds (Linux: /proc/PID/stat). */
    double cpuSeconds() throws IOException {
        return ThreadCpu.cpuSeconds(Files.readString(Path.of("/proc", String.valueOf(pid()), "stat")));
    }

    /** Resident set size of the process, in MiB (Linux). */
    double rssMib() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid()), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) / 1024.0;
            }
        }
        return Double.NaN;
    }

    /** SIGTERM and wait for the graceful stop. */
    void stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }
}
