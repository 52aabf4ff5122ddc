package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.edgebridge.central.CentralSim;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 24, point 5: data.dir and everything in it is its owner's alone, whatever the umask. A real bridge process
 * started under umask 022 (the usual one, under which the broker store was 644 in a 755 broker/ before), on a data
 * dir an older version left open.
 */
class PrivateDataDirIT {
    private static final List<String> UMASK_022 = List.of("sh", "-c", "umask 022 && exec \"$@\"", "sh");

    @TempDir
    Path dir;

    @Test
    void under_umask_022_every_directory_in_data_dir_is_700_and_every_file_600_also_what_was_there_before()
            throws Exception {
        Path data = dir.resolve("data");
        Files.createDirectories(
                data.resolve("tls"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(data.resolve("tls").resolve("left-by-an-old-version.pem"), "old");
        Files.setPosixFilePermissions(
                data.resolve("tls").resolve("left-by-an-old-version.pem"),
                PosixFilePermissions.fromString("rw-r--r--"));
        try (CentralSim central = TestSite.central(Optional.empty(), 1 << 20);
                BridgeProcess bridge = new BridgeProcess(
                                BridgeProcess.logFile("private-data-dir"),
                                "data.dir=" + data,
                                "mqtt.host=127.0.0.1",
                                "auth.anonymous=true",
                                "ingest.url=http://127.0.0.1:" + central.port() + "/ingest")
                        .launchedBy(UMASK_022)
                        .start();
                DeviceSimulator device = DeviceSimulator.of("dev-private", bridge.mqttPort())) {
            device.connect(false);
            device.subscribe(device.receiptTopic());
            device.publish("t", DeviceSimulator.command("PRIVATE-1", "\"secret\":\"s3cr3t-pin-4711\""));
            device.awaitReceipt("PRIVATE-1", "accepted");
            assertThat(Files.exists(data.resolve("broker").resolve("moquette_store.h2")))
                    .isTrue();
            Map<String, String> modes = modes(data);
            assertThat(modes)
                    .containsKeys(
                            "data",
                            "data/broker",
                            "data/broker/moquette_store.h2",
                            "data/outbox.db",
                            "data/bridge.lock",
                            "data/tls/left-by-an-old-version.pem");
            assertThat(modes)
                    .allSatisfy((path, mode) -> assertThat(mode)
                            .as(path)
                            .isEqualTo(
                                    Files.isDirectory(dir.resolve(path), LinkOption.NOFOLLOW_LINKS)
                                            ? "rwx------"
                                            : "rw-------"));
        }
    }

    /** Every path under {@code data} (relative to the temp dir) with its mode. */
    private Map<String, String> modes(Path data) throws Exception {
        Map<String, String> modes = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(data)) {
            for (Path p : walk.toList()) {
                modes.put(
                        dir.relativize(p).toString(),
                        PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS)));
            }
        }
        return modes;
    }
}
