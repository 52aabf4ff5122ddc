package org.edgebridge.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.edgebridge.it.BridgeProcess;
import org.edgebridge.it.Ports;
import org.edgebridge.tls.DevCertificates;

/**
 * One box of a site behind a load balancer, as docs/scale-out.md sets it up: a bridge process with its own
 * {@code edge.id} and {@code data.dir}, {@code edge.behindBalancer=true}, on fixed loopback ports (the balancer's
 * config names them, and a box that starts again takes the same ones). Owns its {@link BridgeProcess}.
 */
final class SiteBox implements AutoCloseable {
    static final String ADMIN_TOKEN = "site-admin-token";
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The box's listeners: plain MQTT, MQTT over TLS, admin. */
    record Listeners(int mqtt, int tls, int admin) {
        /** Free loopback ports that stay free while the box is down between two lives ({@link Ports#freeOutsideEphemeralRange}). */
        static Listeners free() {
            return new Listeners(
                    Ports.freeOutsideEphemeralRange(),
                    Ports.freeOutsideEphemeralRange(),
                    Ports.freeOutsideEphemeralRange());
        }
    }

    final String edgeId;
    final Path dataDir;
    final Listeners ports;
    final BridgeProcess process;

    /** A box with TLS on from {@code tls} (the same server material on every box, as devices see one site name). */
    SiteBox(String edgeId, Path dataDir, Listeners ports, DevCertificates.Material tls, int centralPort) {
        this.edgeId = edgeId;
        this.dataDir = dataDir;
        this.ports = ports;
        this.process = new BridgeProcess(
                BridgeProcess.logFile("scale-out-" + edgeId),
                "edge.id=" + edgeId,
                "edge.behindBalancer=true",
                "data.dir=" + dataDir,
                "mqtt.host=127.0.0.1",
                "mqtt.port=" + ports.mqtt(),
                "admin.host=127.0.0.1",
                "admin.port=" + ports.admin(),
                "tls.port=" + ports.tls(),
                "tls.certFile=" + tls.certFile(),
                "tls.keyFile=" + tls.keyFile(),
                "tls.caFile=" + tls.caFile(),
                "admin.token=" + ADMIN_TOKEN,
                "auth.anonymous=true",
                "ingest.url=http://127.0.0.1:" + centralPort + "/ingest");
    }

    SiteBox start() {
        process.start();
        return this;
    }

    /** {@code GET /api/status}. */
    JsonNode status() throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ports.admin() + "/api/status"))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body());
    }

    /** Commands this box holds that are not final yet. */
    long open() throws IOException, InterruptedException {
        return status().path("outbox").path("open").asLong();
    }

    long connectedDevices() throws IOException, InterruptedException {
        return status().path("devices").path("connected").asLong();
    }

    /** {@code POST /api/forwarder/pause}: the box keeps what it stores and sends nothing to central. */
    void pauseForwarder() throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ports.admin() + "/api/forwarder/pause"))
                        .header("Authorization", "Bearer " + ADMIN_TOKEN)
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(edgeId + ": pause answered " + r.statusCode() + " " + r.body());
        }
    }

    @Override
    public void close() {
        process.close();
    }
}
