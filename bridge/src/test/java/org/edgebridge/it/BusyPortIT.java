package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A port already taken stops start-up with one line that names the key, the port and the address. */
class BusyPortIT {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"mqtt.port", "admin.port"})
    void a_busy_port_names_its_key_and_port(String key) throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();
            List<String> command = new ArrayList<>(BridgeJar.command("128m", List.of()));
            command.addAll(List.of(
                    "run",
                    "--set",
                    "data.dir=" + dir.resolve("data"),
                    "--set",
                    "mqtt.host=127.0.0.1",
                    "--set",
                    "admin.host=127.0.0.1",
                    "--set",
                    "auth.anonymous=true",
                    "--set",
                    "mqtt.port=" + (key.equals("mqtt.port") ? port : "any"),
                    "--set",
                    "admin.port=" + (key.equals("admin.port") ? port : "any")));
            Path log = BridgeProcess.logFile("busy-" + key);
            Process p = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("exits").isTrue();
            assertThat(p.exitValue()).isEqualTo(1);
            assertThat(java.nio.file.Files.readString(log))
                    .contains("error: " + key + "=" + port + ": cannot listen on 127.0.0.1:" + port + " (");
        }
    }
}
