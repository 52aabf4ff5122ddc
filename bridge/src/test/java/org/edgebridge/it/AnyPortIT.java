package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Socket;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import org.edgebridge.central.CentralSim;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.tls.DevCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code any} for every listener port: each binds a free port and the bridge tells which, in this JVM and as a process. */
class AnyPortIT {
    @TempDir
    Path dir;

    @Test
    void each_listener_on_any_port_reports_the_port_it_bound() throws Exception {
        DevCertificates.Material m = DevCertificates.ensure(dir.resolve("tls"));
        try (TestSite site = new TestSite(
                dir.resolve("data"), "tls.port=any", "tls.certFile=" + m.certFile(), "tls.keyFile=" + m.keyFile())) {
            int mqtt = site.bridge.broker().mqttPort();
            int tls = site.bridge.broker().tlsPort();
            int admin = site.bridge.adminPort();
            assertThat(mqtt).isPositive();
            assertThat(tls).isPositive().isNotEqualTo(mqtt);
            assertThat(admin).isPositive();
            assertThat(site.bridge.broker().listeners())
                    .contains("mqtt://127.0.0.1:" + mqtt, "mqtts://127.0.0.1:" + tls);
            for (int port : new int[] {mqtt, tls, admin}) {
                try (Socket s = new Socket("127.0.0.1", port)) {
                    assertThat(s.isConnected()).as("listening on " + port).isTrue();
                }
            }
            assertThat(site.getJson("/api/status")
                            .path("broker")
                            .path("listeners")
                            .asText())
                    .contains(":" + mqtt)
                    .contains(":" + tls);
        }
    }

    @Test
    void a_bridge_process_on_any_ports_logs_them_in_one_line_and_serves_on_them() throws Exception {
        try (CentralSim central = new CentralSim(Optional.empty(), 1 << 24, Clock.systemUTC()).start("127.0.0.1", 0);
                BridgeProcess bridge = new BridgeProcess(
                                BridgeProcess.logFile("any-port"),
                                "data.dir=" + dir.resolve("data"),
                                "mqtt.host=127.0.0.1",
                                "auth.anonymous=true",
                                "ingest.url=http://127.0.0.1:" + central.port() + "/ingest")
                        .start();
                DeviceSimulator device = DeviceSimulator.of("dev-any", bridge.mqttPort())) {
            assertThat(bridge.log())
                    .contains("bound ports: mqtt=" + bridge.mqttPort() + " tls=off admin=" + bridge.adminPort());
            device.connectAndSubscribe();
            device.publish("t", DeviceSimulator.command("ANY-1", ""));
            assertThat(device.awaitFinal("ANY-1").path("status").asText()).isEqualTo("accepted");
        }
    }
}
