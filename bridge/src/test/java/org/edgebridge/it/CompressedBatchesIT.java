package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.edgebridge.central.CentralSim;
import org.edgebridge.central.Inbox;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ingest.compression=gzip with the shipped defaults otherwise: central receives gzipped batches and applies each command once. */
class CompressedBatchesIT {
    private static final int COMMANDS = 40;

    @TempDir
    Path dir;

    @Test
    void with_gzip_central_receives_compressed_batches_and_applies_each_command_once() throws Exception {
        try (CentralSim central = new CentralSim(Optional.empty(), 16L << 20, Clock.systemUTC()).start("127.0.0.1", 0);
                BridgeProcess bridge = new BridgeProcess(
                                BridgeProcess.logFile("compressed-batches"),
                                "data.dir=" + dir.resolve("data"),
                                "mqtt.host=127.0.0.1",
                                "mqtt.port=any",
                                "auth.anonymous=true",
                                "ingest.compression=gzip",
                                "ingest.url=http://127.0.0.1:" + central.port() + "/ingest")
                        .start();
                DeviceSimulator device = DeviceSimulator.of("dev-gzip", bridge.mqttPort())) {
            device.connectAndSubscribe();
            List<String> ids = new ArrayList<>();
            for (int i = 1; i <= COMMANDS; i++) {
                String id = "GZIP-" + i;
                ids.add(id);
                device.publish(
                        "workorder/arrive",
                        DeviceSimulator.command(
                                id,
                                "\"workOrderId\":\"WO-20261202-" + (1000 + i) + "\",\"action\":\"ARRIVE\",\"lat\":48."
                                        + (1000 + 7 * i)));
            }
            for (String id : ids) {
                assertThat(device.awaitFinal(id).path("status").asText()).as(id).isEqualTo("accepted");
            }
            await().atMost(DeviceSimulator.WAIT).until(() -> central.inbox().size() == COMMANDS);
            assertThat(central.inbox().entries())
                    .extracting(Inbox.Entry::eventId)
                    .containsExactlyElementsOf(ids);
            assertThat(central.inbox().entries())
                    .allSatisfy(e -> assertThat(e.deliveries()).isEqualTo(1));
            long answered =
                    central.requestLog().stream().filter(r -> r.status() == 200).count();
            assertThat(central.gzipRequests())
                    .as("every request gzipped")
                    .isEqualTo(answered)
                    .isPositive();
            String status = java.net.http.HttpClient.newHttpClient()
                    .send(
                            java.net.http.HttpRequest.newBuilder(java.net.URI.create(
                                            "http://127.0.0.1:" + bridge.adminPort() + "/api/status"))
                                    .build(),
                            java.net.http.HttpResponse.BodyHandlers.ofString())
                    .body();
            assertThat(DeviceSimulator.JSON
                            .readTree(status)
                            .path("central")
                            .path("compression")
                            .asText())
                    .isEqualTo("gzip");
            long[] bytes = central.bodyBytes();
            assertThat(bytes[0])
                    .as("bytes on the wire below the inflated bytes")
                    .isLessThan(bytes[1]);
        }
    }
}
