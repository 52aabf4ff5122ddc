package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.edgebridge.central.CentralSim;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 24, point 4, as it was found: 700 connections that each declare a 520 KB PUBLISH before any CONNECT and send
 * most of it drove a bridge process at -Xmx256m out of direct memory. Here the real bridge process
 * ({@link BridgeProcess}, -Xmx256m, shipped limits) is sent 700 x 400 KB that way (273 MB, more than its heap and
 * direct memory), then a device publishes a command.
 */
class BeforeLoginFloodProcessIT {
    private static final int FLOOD_CONNECTIONS = 700;
    private static final int SENT_BYTES_EACH = 400_000;

    @TempDir
    Path dir;

    @Test
    void
            seven_hundred_connections_sending_400_kb_before_connect_leave_a_256_mb_bridge_alive_and_a_device_gets_its_accepted()
                    throws Exception {
        try (CentralSim central = TestSite.central(Optional.empty(), 1 << 24);
                BridgeProcess bridge = new BridgeProcess(
                                BridgeProcess.logFile("before-login-flood"),
                                "data.dir=" + dir.resolve("data"),
                                "mqtt.host=127.0.0.1",
                                "auth.anonymous=true",
                                "ingest.url=http://127.0.0.1:" + central.port() + "/ingest")
                        .start()) {
            List<Socket> flood = new ArrayList<>();
            try {
                byte[] header = {0x30, (byte) 0xC0, (byte) 0xDE, 0x1F}; // PUBLISH, remaining length 520,000
                byte[] chunk = new byte[SENT_BYTES_EACH];
                for (int i = 0; i < FLOOD_CONNECTIONS; i++) {
                    Socket s = new Socket("127.0.0.1", bridge.mqttPort());
                    flood.add(s);
                    try {
                        OutputStream out = s.getOutputStream();
                        out.write(header);
                        out.write(chunk);
                        out.flush();
                    } catch (IOException closedByTheBridge) {
                        // what the bridge does now: it closed the connection at the first byte
                    }
                }
                try (DeviceSimulator device = DeviceSimulator.of("field-node-1", bridge.mqttPort())) {
                    device.connectAndSubscribe();
                    device.publish("workorder/arrive", DeviceSimulator.command("WO-1", "\"workOrderId\":\"WO-1\""));
                    device.awaitReceipt("WO-1", "accepted");
                }
            } finally {
                for (Socket s : flood) {
                    s.close();
                }
            }
            assertThat(bridge.isAlive()).isTrue();
            assertThat(bridge.log()).doesNotContain("OutOfMemoryError");
        }
    }
}
