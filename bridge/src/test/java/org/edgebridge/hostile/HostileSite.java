package org.edgebridge.hostile;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.edgebridge.Bridge;
import org.edgebridge.config.ConfigLoader;
import org.edgebridge.device.DeviceSimulator;

/**
 * A bridge in this JVM with the SHIPPED DEFAULTS, in front of a {@link HostileCentral}: only the data dir, loopback
 * ports (any free one), anonymous devices, an admin token and the central's URL are set, plus what a test adds (for
 * the scenarios that are about a setting). A hostile scenario proves nothing if it passes only with thresholds lower
 * than a site runs with.
 */
final class HostileSite implements AutoCloseable {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    static final String ADMIN_TOKEN = "hostile-token";

    final HostileCentral central = new HostileCentral();
    final Path dataDir;
    Bridge bridge;
    private final List<String> sets;
    private final List<DeviceSimulator> devices = new ArrayList<>();

    HostileSite(Path dataDir, String... extraSets) {
        this.dataDir = dataDir;
        this.sets = new ArrayList<>(List.of(
                "data.dir=" + dataDir,
                "mqtt.host=127.0.0.1",
                "mqtt.port=any",
                "auth.anonymous=true",
                "admin.port=any",
                "admin.token=" + ADMIN_TOKEN,
                "ingest.url=" + central.url()));
        sets.addAll(List.of(extraSets));
        try {
            start();
        } catch (RuntimeException e) {
            central.close();
            throw e;
        }
    }

    private void start() {
        bridge = Bridge.start(ConfigLoader.load(null, sets), Clock.systemUTC());
    }

    /** Stops the bridge and starts it again on the same data dir and central. */
    void restart() {
        devices.forEach(DeviceSimulator::close);
        devices.clear();
        bridge.close();
        start();
    }

    /** A connected, subscribed device, closed with the site. */
    DeviceSimulator device(String clientId) {
        DeviceSimulator d = DeviceSimulator.of(clientId, bridge.broker().mqttPort());
        devices.add(d);
        d.connectAndSubscribe();
        return d;
    }

    /** GET /api/status, parsed. */
    JsonNode status() throws Exception {
        return status(bridge.adminPort());
    }

    /** GET /api/status of a bridge on this admin port (loopback: no token needed), parsed. */
    static JsonNode status(int adminPort) throws Exception {
        return DeviceSimulator.JSON.readTree(get(adminPort, "/api/status"));
    }

    String get(String path) throws Exception {
        return get(bridge.adminPort(), path);
    }

    private static String get(int adminPort, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(uri(adminPort, path)).build(), HttpResponse.BodyHandlers.ofString())
                .body();
    }

    /** GET /metrics. */
    String metrics() throws Exception {
        return get("/metrics");
    }

    HttpResponse<String> post(String path) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(uri(bridge.adminPort(), path))
                        .header("Authorization", "Bearer " + ADMIN_TOKEN)
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(int adminPort, String path) {
        return URI.create("http://127.0.0.1:" + adminPort + path);
    }

    /** The device's receipts for a command, by status, in the order they came. */
    static List<String> statuses(DeviceSimulator device, String commandId) {
        return device.receiptsFor(commandId).stream()
                .map(r -> r.path("status").asText())
                .toList();
    }

    @Override
    public void close() {
        devices.forEach(DeviceSimulator::close);
        bridge.close();
        central.close();
    }
}
