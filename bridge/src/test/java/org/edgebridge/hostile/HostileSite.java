package org.edgebridge.hostile;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
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
 * A bridge in this JVM with the SHIPPED DEFAULTS, in front of a {@link RawCentral}: only the data dir, loopback ports
 * (any free one), anonymous devices, an admin token and the central's URL are set, plus what a test adds. A hostile
 * scenario proves nothing if it passes only with thresholds lower than a site runs with.
 */
final class HostileSite implements AutoCloseable {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    static final String ADMIN_TOKEN = "hostile-token";

    final RawCentral central;
    final Path dataDir;
    Bridge bridge;
    private final List<String> sets;
    private final List<DeviceSimulator> devices = new ArrayList<>();

    HostileSite(Path dataDir, String... extraSets) throws IOException {
        this.dataDir = dataDir;
        this.central = new RawCentral();
        this.sets = new ArrayList<>(List.of(
                "data.dir=" + dataDir,
                "mqtt.host=127.0.0.1",
                "mqtt.port=any",
                "auth.anonymous=true",
                "admin.port=any",
                "admin.token=" + ADMIN_TOKEN,
                "ingest.url=" + central.url()));
        sets.addAll(List.of(extraSets));
        start();
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

    JsonNode status() throws Exception {
        return DeviceSimulator.JSON.readTree(get("/api/status"));
    }

    String get(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(uri(path)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    HttpResponse<String> post(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(uri(path)).header("Authorization", "Bearer " + ADMIN_TOKEN)
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + bridge.adminPort() + path);
    }

    @Override
    public void close() throws IOException {
        devices.forEach(DeviceSimulator::close);
        bridge.close();
        central.close();
    }
}
