package org.edgebridge.broker.moquette;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.edgebridge.central.CentralSim;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.it.BridgeProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real bridge process on a broker store that Moquette refuses: it starts anyway (same process, store set
 * aside), counts the reset, shows the {@code broker_store_reset} alarm until an admin acknowledges it (also
 * across a restart), and devices find no session, subscribe again and get their finals from the outbox.
 */
class BrokerStoreResetIT {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern RESETS =
            Pattern.compile("(?m)^edgebridge_broker_store_resets_total(?:\\{[^}]*})? ([0-9.]+)$");

    @TempDir
    Path dir;

    @Test
    void a_store_moquette_throws_on_is_set_aside_the_bridge_is_ready_and_the_alarm_stays_until_acknowledged()
            throws Exception {
        Path data = dir.resolve("data");
        try (CentralSim central = new CentralSim(Optional.empty(), 1 << 24, Clock.systemUTC()).start("127.0.0.1", 0)) {
            String[] sets = sets(data, central);
            Path log = BridgeProcess.logFile("store-reset");
            try (BridgeProcess first = new BridgeProcess(log, sets).start();
                    DeviceSimulator device = DeviceSimulator.of("dev-reset", first.mqttPort())) {
                assertThat(device.connect().isSessionPresent())
                        .as("sessionPresent")
                        .isFalse();
                device.subscribe(device.receiptTopic());
                device.publish("op", DeviceSimulator.command("RESET-1", "\"type\":\"op\""));
                device.awaitFinal("RESET-1");
                assertThat(first.stop()).isIn(0, 143);
            }
            // the store now holds a session Moquette 0.17 cannot read (and that the repair has no reason to touch)
            RefusedStores.unknownMqttLevel(data.resolve("broker"));

            try (BridgeProcess second = new BridgeProcess(log, sets).start();
                    DeviceSimulator device = DeviceSimulator.of("dev-reset", second.mqttPort())) {
                assertThat(resetsMetric(second)).isEqualTo(1.0);
                assertThat(alarmCodes(second)).contains("broker_store_reset");
                assertThat(second.log()).doesNotContain("The file is locked");
                try (var resets = Files.list(data.resolve("broker"))) {
                    Path aside = resets.filter(p -> p.getFileName().toString().startsWith("store-reset-"))
                            .findFirst()
                            .orElseThrow();
                    assertThat(aside.resolve("moquette_store.h2")).isRegularFile();
                    assertThat(Files.readString(aside.resolve("REASON.txt")))
                            .contains("Unrecognized MQTT version value 9");
                }
                assertThat(device.connect().isSessionPresent())
                        .as("sessionPresent after the reset")
                        .isFalse();
                device.subscribe(device.receiptTopic());
                device.publish("op", DeviceSimulator.command("RESET-1", "\"type\":\"op\""));
                assertThat(device.awaitFinal("RESET-1").path("replayed").asBoolean())
                        .as("answered from the outbox")
                        .isTrue();
                assertThat(central.inbox().entries()).hasSize(1);
                assertThat(second.stop()).isIn(0, 143);
            }

            try (BridgeProcess third = new BridgeProcess(log, sets).start()) {
                assertThat(resetsMetric(third)).as("this process reset nothing").isEqualTo(0.0);
                assertThat(alarmCodes(third))
                        .as("not acknowledged yet: still an alarm")
                        .contains("broker_store_reset");
                assertThat(post(third, "/api/alarms/broker_store_reset/ack", null)
                                .statusCode())
                        .isEqualTo(401);
                assertThat(post(third, "/api/alarms/outbox_full/ack", "admin-secret")
                                .statusCode())
                        .isEqualTo(404);
                HttpResponse<String> ack = post(third, "/api/alarms/broker_store_reset/ack", "admin-secret");
                assertThat(ack.statusCode()).isEqualTo(200);
                assertThat(JSON.readTree(ack.body()).path("acknowledged").asInt())
                        .isEqualTo(1);
                assertThat(alarmCodes(third)).doesNotContain("broker_store_reset");
                assertThat(third.stop()).isIn(0, 143);
            }
        }
    }

    @Test
    void an_unreadable_store_file_is_set_aside_and_the_bridge_is_ready() throws Exception {
        Path data = dir.resolve("data");
        RefusedStores.garbage(data.resolve("broker"));
        try (CentralSim central = new CentralSim(Optional.empty(), 1 << 24, Clock.systemUTC()).start("127.0.0.1", 0);
                BridgeProcess bridge =
                        new BridgeProcess(BridgeProcess.logFile("store-garbage"), sets(data, central)).start()) {
            assertThat(resetsMetric(bridge)).isEqualTo(1.0);
            assertThat(alarmCodes(bridge)).contains("broker_store_reset");
            assertThat(bridge.stop()).isIn(0, 143);
        }
    }

    private static String[] sets(Path data, CentralSim central) {
        return new String[] {
            "data.dir=" + data,
            "mqtt.host=127.0.0.1",
            "mqtt.port=any",
            "auth.anonymous=true",
            "admin.token=admin-secret",
            "ingest.url=http://127.0.0.1:" + central.port() + "/ingest",
            "forwarder.backoffInitial=100ms",
            "forwarder.backoffMax=1s"
        };
    }

    private static double resetsMetric(BridgeProcess bridge) throws Exception {
        Matcher m = RESETS.matcher(get(bridge, "/metrics").body());
        assertThat(m.find())
                .as("edgebridge_broker_store_resets_total in /metrics")
                .isTrue();
        return Double.parseDouble(m.group(1));
    }

    private static List<String> alarmCodes(BridgeProcess bridge) throws Exception {
        JsonNode status = JSON.readTree(get(bridge, "/api/status").body());
        return status.path("alarms").findValuesAsText("code");
    }

    private static HttpResponse<String> get(BridgeProcess bridge, String path) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + bridge.adminPort() + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(BridgeProcess bridge, String path, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + bridge.adminPort() + path))
                .POST(HttpRequest.BodyPublishers.noBody());
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
