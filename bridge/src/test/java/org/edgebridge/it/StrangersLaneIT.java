package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.edgebridge.central.CentralSim;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 40, point 3: strangers crowded out devices. 1,100 idle TCP connections from the devices' own address (one
 * NAT) filled {@code mqtt.maxConnectionsPerAddress} (1,024) and a new device's command was applied 0 of 1; 4
 * addresses filled {@code mqtt.maxConnections} for the whole site. Now connections that have not logged in have a
 * lane of their own ({@code mqtt.maxConnectionsBeforeLogin} 1,024 in all, {@code mqtt.maxConnectionsBeforeLoginPerNetwork}
 * 768 per /24), and when a cap is reached the OLDEST of them is closed, not the new one. A real bridge process, the
 * shipped defaults, raw idle sockets (a client library would send a CONNECT).
 */
class StrangersLaneIT {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final int IDLE_PER_ADDRESS = 1_100;

    @TempDir
    Path dir;

    @Test
    void eleven_hundred_idle_sockets_from_the_devices_address_and_as_many_from_another_leave_a_new_device_its_accepted()
            throws Exception {
        List<Socket> idle = new ArrayList<>();
        try (CentralSim central = TestSite.central(Optional.empty(), 1 << 24);
                BridgeProcess bridge = new BridgeProcess(
                                BridgeProcess.logFile("strangers-lane"),
                                "data.dir=" + dir.resolve("data"),
                                "mqtt.host=127.0.0.1",
                                "auth.anonymous=true",
                                "ingest.url=http://127.0.0.1:" + central.port() + "/ingest")
                        .start()) {
            try {
                // the devices' own address, then a neighbour's: 2,200 sockets that never send a byte
                open(idle, InetAddress.getByName("127.0.0.1"), bridge.mqttPort());
                open(idle, InetAddress.getByName("127.0.1.1"), bridge.mqttPort());
                try (DeviceSimulator device = DeviceSimulator.of("field-node-1", bridge.mqttPort())) {
                    device.connectAndSubscribe();
                    device.publish("workorder/arrive", DeviceSimulator.command("LANE-1", "\"workOrderId\":\"LANE-1\""));
                    assertThat(device.awaitFinal("LANE-1").path("status").asText())
                            .isEqualTo("accepted");
                    JsonNode limits = limits(bridge);
                    assertThat(limits.path("openBeforeLogin").asInt())
                            .as("the strangers' lane")
                            .isLessThanOrEqualTo(1_024);
                    assertThat(limits.path("beforeLoginOldestClosed").asLong())
                            .as("the oldest closed for newer ones")
                            .isGreaterThanOrEqualTo(2L * IDLE_PER_ADDRESS - 1_024);
                    assertThat(limits.path("openConnections").asInt()).isLessThanOrEqualTo(1_025);
                    assertThat(metrics(bridge))
                            .contains("edgebridge_broker_connections_before_login_oldest_closed_total");
                }
            } finally {
                for (Socket s : idle) {
                    s.close();
                }
            }
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> limits(bridge).path("openBeforeLogin").asInt() == 0);
            assertThat(central.inbox().size()).isEqualTo(1);
        }
    }

    private static void open(List<Socket> into, InetAddress from, int port) throws IOException {
        for (int i = 0; i < IDLE_PER_ADDRESS; i++) {
            into.add(new Socket(InetAddress.getByName("127.0.0.1"), port, from, 0));
        }
    }

    private static JsonNode limits(BridgeProcess bridge) throws Exception {
        return DeviceSimulator.JSON
                .readTree(get(bridge, "/api/status"))
                .path("broker")
                .path("limits");
    }

    private static String metrics(BridgeProcess bridge) throws Exception {
        return get(bridge, "/metrics");
    }

    private static String get(BridgeProcess bridge, String path) throws Exception {
        return HTTP.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + bridge.adminPort() + path))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }
}
