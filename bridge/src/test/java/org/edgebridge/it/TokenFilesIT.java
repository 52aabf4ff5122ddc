package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.util.Optional;
import org.edgebridge.central.CentralSim;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real bridge process reads both tokens from owner-only files (ingest.tokenFile, admin.tokenFile): central, which
 * demands its token, applies the command; an admin POST with the token from the file is allowed; the status page
 * names the files and never holds a secret.
 */
class TokenFilesIT {
    private static final String CENTRAL_SECRET = "central-secret-from-a-file";
    private static final String ADMIN_SECRET = "admin-secret-from-a-file";
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    @Test
    void a_bridge_with_both_tokens_in_files_reaches_central_and_admits_the_admin() throws Exception {
        Path ingestFile = secret("ingest.token", CENTRAL_SECRET + "\n");
        Path adminFile = secret("admin.token", ADMIN_SECRET + "\n");
        try (CentralSim central = new CentralSim(Optional.of(CENTRAL_SECRET), 16L << 20, Clock.systemUTC())
                        .start("127.0.0.1", 0);
                BridgeProcess bridge = new BridgeProcess(
                                BridgeProcess.logFile("token-files"),
                                "data.dir=" + dir.resolve("data"),
                                "mqtt.host=127.0.0.1",
                                "mqtt.port=any",
                                "auth.anonymous=true",
                                "ingest.url=http://127.0.0.1:" + central.port() + "/ingest",
                                "ingest.tokenFile=" + ingestFile,
                                "admin.tokenFile=" + adminFile)
                        .start();
                DeviceSimulator device = DeviceSimulator.of("dev-tokens", bridge.mqttPort())) {
            device.connectAndSubscribe();
            device.publish("workorder/arrive", DeviceSimulator.command("TOKEN-FILE-1", "\"n\":1"));
            assertThat(device.awaitFinal("TOKEN-FILE-1").path("status").asText())
                    .isEqualTo("accepted");
            await().atMost(DeviceSimulator.WAIT).until(() -> central.inbox().size() == 1);
            assertThat(central.inbox().entries().get(0).deliveries()).isEqualTo(1);

            String admin = "http://127.0.0.1:" + bridge.adminPort();
            assertThat(post(admin + "/api/forwarder/pause", "wrong-token")).isEqualTo(401);
            assertThat(post(admin + "/api/forwarder/pause", ADMIN_SECRET)).isEqualTo(200);
            assertThat(post(admin + "/api/forwarder/resume", ADMIN_SECRET)).isEqualTo(200);

            String status = HTTP.send(
                            HttpRequest.newBuilder(URI.create(admin + "/api/status"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            JsonNode site = DeviceSimulator.JSON.readTree(status).path("site");
            assertThat(site.path("ingestToken").asText()).isEqualTo("file " + ingestFile);
            assertThat(site.path("adminToken").asText()).isEqualTo("file " + adminFile);
            assertThat(status).doesNotContain(CENTRAL_SECRET, ADMIN_SECRET);
            assertThat(bridge.log())
                    .doesNotContain(CENTRAL_SECRET, ADMIN_SECRET)
                    .doesNotContain("readable by");
        }
    }

    private Path secret(String name, String content) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, content);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }

    private static int post(String url, String token) throws Exception {
        return HTTP.send(
                        HttpRequest.newBuilder(URI.create(url))
                                .header("Authorization", "Bearer " + token)
                                .POST(HttpRequest.BodyPublishers.noBody())
                                .build(),
                        HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }
}
