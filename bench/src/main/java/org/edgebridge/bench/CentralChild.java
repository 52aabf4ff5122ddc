package org.edgebridge.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The reference central ({@code edge-bridge.jar central-sim}) in its own JVM, so that its CPU and GC are not the
 * bench's or the bridge's, as a real central's are not.
 */
final class CentralChild implements AutoCloseable {
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Process process;
    final int port;

    CentralChild(Path log, int port) throws IOException {
        this(log, port, 0);
    }

    /** @param delayMs each answer leaves this long after its request was applied: a central across a WAN */
    CentralChild(Path log, int port, long delayMs) throws IOException {
        this.port = port;
        process = BridgeChild.startJvm(
                List.of("-Xmx512m"),
                List.of(
                        "-jar",
                        BridgeChild.jar().toString(),
                        "central-sim",
                        "--host",
                        "127.0.0.1",
                        "--port",
                        String.valueOf(port),
                        "--delay-ms",
                        String.valueOf(delayMs)),
                log);
    }

    String ingestUrl() {
        return "http://127.0.0.1:" + port + "/ingest";
    }

    /** Waits for {@code /health}. */
    CentralChild awaitReady(Duration atMost) throws InterruptedException {
        long deadline = System.nanoTime() + atMost.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("central-sim exited with " + process.exitValue());
            }
            try {
                if (get("/health").statusCode() == 200) {
                    return this;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("central-sim not ready within " + atMost);
    }

    /** Central's counters ({@code /sim/stats}): applied, duplicates, orderingViolations, ... */
    JsonNode stats() throws IOException, InterruptedException {
        return new ObjectMapper().readTree(get("/sim/stats").body());
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
