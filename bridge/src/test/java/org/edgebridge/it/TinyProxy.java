package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * A real Debian {@code tinyproxy} on a loopback port with its own config file in a temp dir (.ci/run installs it).
 * Missing, the test is skipped, except under {@code CI=true}, where it fails. Owns the process.
 */
final class TinyProxy implements AutoCloseable {
    private static final Path BINARY = Path.of("/usr/bin/tinyproxy");
    final int port;
    final Path log;
    private final Process process;

    private TinyProxy(int port, Path log, Process process) {
        this.port = port;
        this.log = log;
        this.process = process;
    }

    static void requireInstalled() {
        boolean present = Files.isExecutable(BINARY);
        if ("true".equals(System.getenv("CI"))) {
            if (!present) {
                Assertions.fail(
                        "CI=true, but tinyproxy is not installed: the proxy tests must run in CI (.ci/run installs it)");
            }
        } else {
            Assumptions.assumeTrue(present, "Debian's tinyproxy is not installed (.ci/run installs it)");
        }
    }

    /** @param admitLoopback false: a proxy that refuses this box (403 Access denied) */
    static TinyProxy start(Path dir, int port, boolean admitLoopback) throws IOException {
        requireInstalled();
        Files.createDirectories(dir);
        Path log = dir.resolve("tinyproxy.log");
        Path conf = dir.resolve("tinyproxy.conf");
        // no ConnectPort line: CONNECT to any port; Allow names who may use it
        Files.writeString(
                conf,
                String.join(
                        "\n",
                        "Port " + port,
                        "Listen 127.0.0.1",
                        "Timeout 30",
                        "LogFile \"" + log + "\"",
                        "LogLevel Connect",
                        "MaxClients 20",
                        "Allow " + (admitLoopback ? "127.0.0.1" : "192.0.2.1"),
                        "DisableViaHeader Yes",
                        ""));
        Process process = new ProcessBuilder(BINARY.toString(), "-d", "-c", conf.toString())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("tinyproxy.out").toFile())
                .start();
        TinyProxy proxy = new TinyProxy(port, log, process);
        try {
            Awaitility.await("tinyproxy listening on " + port)
                    .atMost(Duration.ofSeconds(10))
                    .until(proxy::accepts);
        } catch (RuntimeException e) {
            proxy.close();
            throw e;
        }
        return proxy;
    }

    private boolean accepts() {
        assertThat(process.isAlive()).as("tinyproxy is running").isTrue();
        try (Socket s = new Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    String logText() throws IOException {
        return Files.exists(log) ? Files.readString(log) : "";
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
