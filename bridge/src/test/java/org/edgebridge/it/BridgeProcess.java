package org.edgebridge.it;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
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

/** The bridge as a real child process ({@code java -jar edge-bridge.jar run}), to stop with SIGTERM or kill -9. */
public final class BridgeProcess implements AutoCloseable {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final List<String> command = new ArrayList<>();
    private final Path log;
    final int adminPort = Ports.free();
    private final List<String> launcher = new ArrayList<>();
    private Process process;

    public BridgeProcess(Path log, String... sets) {
        this(log, List.of(), sets);
    }

    public BridgeProcess(Path log, List<String> jvmArgs, String... sets) {
        this.log = log;
        Path jar = Path.of(System.getProperty("bridge.jar", "target/edge-bridge.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: run the tests with 'mvn verify', which builds it first");
        }
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.addAll(jvmArgs);
        command.addAll(List.of("-jar", jar.toString(), "run", "--set", "admin.port=" + adminPort));
        for (String set : sets) {
            command.add("--set");
            command.add(set);
        }
    }

    /** A fresh log file under target/it-logs, kept after the test for whoever reads a failure. */
    public static Path logFile(String name) {
        try {
            Path dir = Files.createDirectories(Path.of("target", "it-logs"));
            Path file = dir.resolve(name + "-" + System.currentTimeMillis() + ".log");
            Files.deleteIfExists(file);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Runs the JVM through this command, e.g. {@code nsenter -t PID -m} to start it in another mount namespace;
     * the launcher must exec the JVM (not fork it) so that signals reach the bridge itself.
     */
    public BridgeProcess launchedBy(List<String> launcherCommand) {
        launcher.clear();
        launcher.addAll(launcherCommand);
        return this;
    }

    /** Starts the process and waits until {@code /health/ready} answers 200. */
    public BridgeProcess start() {
        List<String> full = new ArrayList<>(launcher);
        full.addAll(command);
        try {
            process = new ProcessBuilder(full)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        await("bridge process ready (log: " + log + ")").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    if (!process.isAlive()) {
                        throw new IllegalStateException("bridge process exited with " + process.exitValue() + "; log: "
                                + Files.readString(log));
                    }
                    return ready();
                });
        return this;
    }

    private boolean ready() {
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/health/ready"))
                    .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** SIGKILL: no shutdown hook runs. */
    public void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM, without waiting for the process to end. */
    public void sigterm() {
        process.destroy();
    }

    /** Waits at most {@code limit} for the process to end. @return whether it ended */
    public boolean awaitExit(Duration limit) throws InterruptedException {
        return process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** SIGTERM, then wait for the graceful stop. @return the exit code */
    public int stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("bridge did not stop within 60 s of SIGTERM");
        }
        return process.exitValue();
    }

    public String log() throws IOException {
        return Files.readString(log);
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** The exit code of a process that has ended. */
    public int exitValue() {
        return process.exitValue();
    }

    public int adminPort() {
        return adminPort;
    }

    public long pid() {
        return process.pid();
    }

    @Override
    public void close() {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
        }
    }
}
