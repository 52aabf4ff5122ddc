package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.edgebridge.config.ConfigLoader;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 17, item 7: every metric has its HELP, the outbox is its owner's alone, diagnose shows paths. */
class SmallThingsIT {
    @TempDir
    Path dir;

    @Test
    void every_metric_has_a_help_text() throws Exception {
        try (TestSite site = new TestSite(dir.resolve("data"))) {
            String metrics = site.get("/metrics").body();
            List<String> help =
                    metrics.lines().filter(l -> l.startsWith("# HELP ")).toList();
            assertThat(help)
                    .anySatisfy(l -> assertThat(l).startsWith("# HELP edgebridge_broker_connected_clients "))
                    .anySatisfy(l -> assertThat(l).startsWith("# HELP edgebridge_forwarder_consecutive_failures "));
            assertThat(help)
                    .as("HELP lines without text")
                    .allSatisfy(l -> assertThat(l.split(" ", 4))
                            .hasSize(4)
                            .satisfies(parts -> assertThat(parts[3]).isNotBlank()));
        }
    }

    @Test
    void the_outbox_and_its_wal_are_readable_by_their_owner_only_also_when_an_old_version_left_them_open()
            throws Exception {
        Path data = dir.resolve("data");
        try (TestSite site = new TestSite(data);
                DeviceSimulator device = site.device("dev-mode")) {
            device.connectAndSubscribe();
            device.publish("op", DeviceSimulator.command("MODE-1", ""));
            device.awaitReceipt("MODE-1", "stored");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(data.resolve("outbox.db"))))
                    .isEqualTo("rw-------");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(data.resolve("outbox.db-wal"))))
                    .isEqualTo("rw-------");
        }
        Files.setPosixFilePermissions(data.resolve("outbox.db"), PosixFilePermissions.fromString("rw-r--r--"));
        try (TestSite site = new TestSite(data)) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(data.resolve("outbox.db"))))
                    .isEqualTo("rw-------");
        }
    }

    @Test
    void diagnose_masks_secrets_but_not_the_password_file_path() {
        var masked = ConfigLoader.load(
                        null,
                        List.of(
                                "auth.passwordFile=/etc/hosts",
                                "admin.token=secret-admin",
                                "ingest.token=secret-central"))
                .masked();
        assertThat(masked)
                .containsEntry("auth.passwordFile", "/etc/hosts")
                .containsEntry("admin.token", "****")
                .containsEntry("ingest.token", "****");
    }
}
