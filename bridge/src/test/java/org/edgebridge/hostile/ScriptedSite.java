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
 * A bridge in this JVM with the SHIPPED DEFAULTS (only the data dir, loopback listeners on free ports, anonymous
 * devices and the central's URL are set), in front of a {@link HostileCentral}. Extra {@code key=value} sets are
 * for the scenarios that are about a setting.
 */
final class ScriptedSite implements AutoCloseable {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    final HostileCentral central = new HostileCentral();
    final Bridge bridge;

    ScriptedSite(Path dataDir, String... extraSets) {
        List<String> sets = new ArrayList<>(List.of("data.dir=" + dataDir, "mqtt.host=127.0.0.1", "mqtt.port=any",
                "auth.anonymous=true", "admin.port=any", "ingest.url=" + central.url()));
        sets.addAll(List.of(extraSets));
        try {
            bridge = Bridge.start(ConfigLoader.load(null, sets), Clock.systemUTC());
        } catch (RuntimeException e) {
            central.close();
            throw e;
        }
    }

    DeviceSimulator device(String clientId) {
        DeviceSimulator device = DeviceSimulator.of(clientId, bridge.broker().mqttPort());
        device.connectAndSubscribe();
        return device;
    }

    /** GET /api/status, parsed. */
    JsonNode status() throws Exception {
        return status(bridge.adminPort());
    }

    static JsonNode status(int adminPort) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/api/status"))
                .build(), HttpResponse.BodyHandlers.ofString());
        return DeviceSimulator.JSON.readTree(r.body());
    }

    /** GET /metrics. */
    String metrics() throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + bridge.adminPort() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    /** The device's receipts for a command, by status, in the order they came. */
    static List<String> statuses(DeviceSimulator device, String commandId) {
        return device.receiptsFor(commandId).stream().map(r -> r.path("status").asText()).toList();
    }

    @Override
    public void close() {
        bridge.close();
        central.close();
    }
}
