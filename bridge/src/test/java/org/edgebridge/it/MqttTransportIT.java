package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.edgebridge.central.CentralSim;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code mqtt.transport} in the product jar, as a process: epoll (its native library is in the jar), NIO, and auto
 * where the native library does not load ({@code -Dio.netty.transport.noNative=true}, as on a system without it),
 * each with a real MQTT client whose command gets its final receipt through the bridge's own handlers; and epoll
 * asked for where it does not load, which stops the start with the key and the fix.
 */
class MqttTransportIT {
    private static final String NO_NATIVE = "-Dio.netty.transport.noNative=true";

    @TempDir
    Path dir;

    @ParameterizedTest(name = "mqtt.transport={0}{1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "epoll|''|MQTT listeners: epoll, 2 I/O thread(s) (mqtt.transport=epoll)",
                "nio|''|MQTT listeners: NIO, 2 I/O thread(s) (mqtt.transport=nio)",
                "auto|''|MQTT listeners: epoll, 2 I/O thread(s) (mqtt.transport=auto)",
                "auto|" + NO_NATIVE + "|MQTT listeners: NIO, 2 I/O thread(s) (mqtt.transport=auto: native epoll does "
                        + "not load here: java.lang.UnsupportedOperationException"
            })
    void a_device_gets_its_final_receipt_on_each_transport(String transport, String jvmArg, String logLine)
            throws Exception {
        try (CentralSim central = new CentralSim(Optional.empty(), 1 << 24, Clock.systemUTC()).start("127.0.0.1", 0);
                BridgeProcess bridge = new BridgeProcess(
                                BridgeProcess.logFile("transport-" + transport),
                                jvmArg.isEmpty() ? List.of() : List.of(jvmArg),
                                "data.dir=" + dir.resolve("data"),
                                "mqtt.host=127.0.0.1",
                                "mqtt.transport=" + transport,
                                "mqtt.ioThreads=2",
                                "auth.anonymous=true",
                                "ingest.url=http://127.0.0.1:" + central.port() + "/ingest")
                        .start();
                DeviceSimulator device = DeviceSimulator.of("dev-" + transport, bridge.mqttPort())) {
            assertThat(bridge.log()).contains(logLine);
            device.connectAndSubscribe();
            for (int i = 1; i <= 3; i++) {
                device.publish("t", DeviceSimulator.command("TR-" + i, ""));
            }
            for (int i = 1; i <= 3; i++) {
                assertThat(device.awaitFinal("TR-" + i).path("status").asText()).isEqualTo("accepted");
            }
        }
    }

    @Test
    void epoll_where_it_does_not_load_stops_the_start_with_the_key_and_the_fix() throws Exception {
        BridgeProcess bridge = new BridgeProcess(
                BridgeProcess.logFile("transport-epoll-missing"),
                List.of(NO_NATIVE),
                "data.dir=" + dir.resolve("data"),
                "mqtt.host=127.0.0.1",
                "mqtt.transport=epoll",
                "auth.anonymous=true");
        try (bridge) {
            assertThatThrownBy(bridge::start).hasStackTraceContaining("bridge process exited");
            assertThat(bridge.log())
                    .contains("mqtt.transport=epoll: Netty's native epoll does not load here")
                    .contains("set mqtt.transport=auto");
        }
    }
}
