package org.edgebridge.it;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.edgebridge.Bridge;
import org.edgebridge.central.CentralSim;
import org.edgebridge.config.ConfigLoader;
import org.edgebridge.device.DeviceBuilder;
import org.edgebridge.device.DeviceSimulator;

/**
 * A bridge in this JVM, on a temp dir, with a reference central on loopback. Every listener is started on any free
 * port ({@code mqtt.port=any}, {@code admin.port=any}) and asked afterwards which one it bound.
 */
final class TestSite implements AutoCloseable {
    final Path dataDir;
    /** The port the plain MQTT listener bound; 0 when a test switched it off. */
    final int mqttPort;
    /** The port the TLS listener bound; 0 unless a test set tls.certFile (then {@code tls.port=any} gives any free one). */
    final int tlsPort;

    final int centralPort;
    final CentralSim central;
    final Bridge bridge;
    private final boolean ownsCentral;

    TestSite(Path dataDir, String... extraSets) {
        this(dataDir, null, extraSets);
    }

    /** A site whose central is given (and stays open when the site closes), e.g. to restart the bridge. */
    static TestSite withCentral(Path dataDir, CentralSim central, String... extraSets) {
        return new TestSite(dataDir, central, extraSets);
    }

    static CentralSim central(Optional<String> token, long maxRequestBytes) {
        return new CentralSim(token, maxRequestBytes, Clock.systemUTC()).start("127.0.0.1", 0);
    }

    private TestSite(Path dataDir, CentralSim given, String... extraSets) {
        this.dataDir = dataDir;
        this.ownsCentral = given == null;
        this.central = given != null ? given : central(Optional.empty(), 16L * 1024 * 1024);
        this.centralPort = central.port();
        List<String> sets = new ArrayList<>(List.of(
                "data.dir=" + dataDir,
                "mqtt.host=127.0.0.1",
                "mqtt.port=any",
                "auth.anonymous=true",
                "admin.port=any",
                "admin.token=test-token",
                "ingest.url=http://127.0.0.1:" + centralPort + "/ingest",
                "forwarder.backoffInitial=50ms",
                "forwarder.backoffMax=500ms"));
        sets.addAll(List.of(extraSets));
        try {
            this.bridge = Bridge.start(ConfigLoader.load(null, sets), Clock.systemUTC());
        } catch (RuntimeException e) {
            if (ownsCentral) {
                central.close();
            }
            throw e;
        }
        this.mqttPort = bridge.broker().mqttPort();
        this.tlsPort = bridge.broker().tlsPort();
    }

    DeviceSimulator device(String clientId) {
        return DeviceSimulator.of(clientId, mqttPort);
    }

    /** A device of this site still to be built, e.g. with credentials. */
    DeviceBuilder deviceWith(String clientId) {
        return DeviceSimulator.builder(clientId, mqttPort);
    }

    String adminUrl(String path) {
        return "http://127.0.0.1:" + bridge.adminPort() + path;
    }

    private static final java.net.http.HttpClient HTTP = java.net.http.HttpClient.newHttpClient();

    /** GET on the admin API. */
    java.net.http.HttpResponse<String> get(String path) throws Exception {
        return HTTP.send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create(adminUrl(path)))
                        .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
    }

    /** POST on the admin API, with {@code Authorization: Bearer token} unless token is null. */
    java.net.http.HttpResponse<String> post(String path, String token) throws Exception {
        var b = java.net.http.HttpRequest.newBuilder(java.net.URI.create(adminUrl(path)))
                .POST(java.net.http.HttpRequest.BodyPublishers.noBody());
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(b.build(), java.net.http.HttpResponse.BodyHandlers.ofString());
    }

    /** GET on the admin API, parsed as JSON. */
    com.fasterxml.jackson.databind.JsonNode getJson(String path) throws Exception {
        return DeviceSimulator.JSON.readTree(get(path).body());
    }

    @Override
    public void close() {
        bridge.close();
        if (ownsCentral) {
            central.close();
        }
    }
}
