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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The bridge as a real child process ({@code java -jar edge-bridge.jar run}), to stop with SIGTERM or kill -9. Its
 * listeners start on any free port ({@code admin.port=any}, {@code mqtt.port=any}) unless the test sets one; the
 * ports it bound are read from its log line {@code bound ports: mqtt=… tls=… admin=…}.
 */
public final class BridgeProcess implements AutoCloseable {
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final Pattern BOUND_PORTS = Pattern.compile("bound ports: mqtt=(\\w+) tls=(\\w+) admin=(\\d+)");

    private final List<String> command = new ArrayList<>();
    private final Path log;
    private final List<String> launcher = new ArrayList<>();
    private Process process;
    private volatile int mqttPort;
    private volatile int tlsPort;
    private volatile int adminPort;

    public BridgeProcess(Path log, String... sets) {
        this(log, List.of(), sets);
    }

    public BridgeProcess(Path log, List<String> jvmArgs, String... sets) {
        this.log = log;
        command.addAll(BridgeJar.command("256m", jvmArgs));
        command.addAll(List.of("run", "--set", "admin.port=any", "--set", "mqtt.port=any"));
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

    /** Starts the process, reads the ports it bound from its log and waits until {@code /health/ready} answers 200. */
    public BridgeProcess start() {
        List<String> full = new ArrayList<>(launcher);
        full.addAll(command);
        long logStart; // the log may hold earlier lives of this bridge: their ports are not this one's
        try {
            logStart = Files.exists(log) ? Files.size(log) : 0;
            process = new ProcessBuilder(full)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        await("bridge process ready (log: " + log + ")")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    if (!process.isAlive()) {
                        throw new IllegalStateException("bridge process exited with " + process.exitValue() + "; log: "
                                + Files.readString(log));
                    }
                    return boundPorts(logStart) && ready();
                });
        return this;
    }

    /** Whether this life's "bound ports" line is in the log yet; takes the ports from it. */
    private boolean boundPorts(long logStart) throws IOException {
        if (adminPort != 0) {
            return true;
        }
        String text;
        try (var in = Files.newInputStream(log)) {
            in.skipNBytes(logStart);
            text = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        Matcher m = BOUND_PORTS.matcher(text);
        if (!m.find()) {
            return false;
        }
        mqttPort = m.group(1).equals("off") ? 0 : Integer.parseInt(m.group(1));
        tlsPort = m.group(2).equals("off") ? 0 : Integer.parseInt(m.group(2));
        adminPort = Integer.parseInt(m.group(3));
        return true;
    }

    private boolean ready() {
        try {
            HttpResponse<String> r = HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/health/ready"))
                            .timeout(Duration.ofSeconds(2))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
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

    /** The port the admin listener bound (known once {@link #start()} returned). */
    /**
     * The value of one sample of {@code /metrics} (Prometheus text; the first series of that name), or -1 if there
     * is none.
     */
    public double metric(String name) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/metrics"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(\\{[^}]*\\})? ([0-9.eE+-]+)$")
                .matcher(r.body());
        return m.find() ? Double.parseDouble(m.group(2)) : -1;
    }

    public int adminPort() {
        return adminPort;
    }

    /** The port the plain MQTT listener bound, 0 when it is off (known once {@link #start()} returned). */
    public int mqttPort() {
        return mqttPort;
    }

    /** The port the TLS listener bound, 0 when it is off (known once {@link #start()} returned). */
    public int tlsPort() {
        return tlsPort;
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
