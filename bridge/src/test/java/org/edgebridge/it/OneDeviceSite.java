package org.edgebridge.it;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * The setup of a test class whose every test needs a fresh {@link TestSite} and one connected, subscribed device:
 * extend it and pass the device's client id and the site's extra settings to the constructor.
 */
abstract class OneDeviceSite {
    private final String clientId;
    private final String[] sets;

    @TempDir
    Path dir;

    TestSite site;
    DeviceSimulator device;

    OneDeviceSite(String clientId, String... sets) {
        this.clientId = clientId;
        this.sets = sets;
    }

    @BeforeEach
    void startSiteAndDevice() {
        site = new TestSite(dir, sets);
        device = site.device(clientId);
        device.connectAndSubscribe();
    }

    @AfterEach
    void stopSiteAndDevice() {
        device.close();
        site.close();
    }

    HttpResponse<String> get(String path) throws Exception {
        return site.get(path);
    }

    HttpResponse<String> post(String path, String token) throws Exception {
        return site.post(path, token);
    }

    /** {@code GET /api/status}, parsed. */
    JsonNode status() throws Exception {
        return site.getJson("/api/status");
    }

    static JsonNode json(HttpResponse<String> r) throws Exception {
        return DeviceSimulator.JSON.readTree(r.body());
    }
}
