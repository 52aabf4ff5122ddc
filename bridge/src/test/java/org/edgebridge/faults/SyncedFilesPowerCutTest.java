package org.edgebridge.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.edgebridge.broker.CertificateDevices;
import org.edgebridge.broker.PasswordFile;
import org.edgebridge.storage.Fsync;
import org.edgebridge.tls.DevCertificates;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The files the bridge writes outside its two stores come back whole after a power cut ({@link PowerCutFs}): each
 * of these lost its content or its name at a cut before issue 41 (a rename or a new file whose directory was never
 * synced, data written and renamed without an fsync).
 */
class SyncedFilesPowerCutTest {
    @TempDir
    Path tmp;

    private PowerCutFs fs;
    private Path root;

    @BeforeEach
    void mount() throws Exception {
        fs = PowerCutFs.mount(tmp.resolve("backing"), tmp.resolve("mnt"));
        root = fs.root();
    }

    @AfterEach
    void unmount() {
        fs.close();
    }

    @Test
    void the_password_file_keeps_every_device_added_before_a_cut() throws Exception {
        Path file = root.resolve("passwords");
        PasswordFile.addDevice(file, "dev-1", "user-1", "secret-one-1");
        fs.cut();
        assertThat(PasswordFile.list(file))
                .extracting(PasswordFile.Entry::clientId)
                .containsExactly("dev-1");
        PasswordFile.addDevice(file, "dev-2", "user-2", "secret-two-2"); // a rewrite and a rename over the old file
        fs.cut();
        assertThat(PasswordFile.list(file))
                .extracting(PasswordFile.Entry::clientId)
                .containsExactly("dev-1", "dev-2");
    }

    @Test
    void a_client_id_remembered_as_a_certificate_device_stays_remembered() {
        Path file = root.resolve("certificate-devices");
        CertificateDevices.load(file, 100, Optional.empty()).remember("cert-dev-1");
        assertThat(file).exists();
        try {
            fs.cut();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        assertThat(CertificateDevices.load(file, 100, Optional.empty()).needsCertificate("cert-dev-1"))
                .isTrue();
    }

    @Test
    void the_dev_tls_material_made_at_first_start_is_whole_after_a_cut() throws Exception {
        Path dir = root.resolve("tls"); // data.dir/tls of the demo (Bridge syncs a new data.dir itself at start)
        DevCertificates.Material m = DevCertificates.ensure(dir);
        byte[] key = Files.readAllBytes(m.keyFile());
        DevCertificates.DeviceMaterial device = DevCertificates.issueDevice(dir, "dev-tls");
        byte[] deviceKey = Files.readAllBytes(device.keyFile());
        fs.cut();
        assertThat(Files.readAllBytes(m.keyFile())).isEqualTo(key);
        for (Path f :
                new Path[] {m.caFile(), m.certFile(), dir.resolve(DevCertificates.CA_KEY_FILE), device.certFile()}) {
            assertThat(Files.size(f)).as(f.toString()).isPositive();
        }
        assertThat(Files.readAllBytes(device.keyFile())).isEqualTo(deviceKey);
    }

    @Test
    void directories_made_at_start_keep_their_names_once_synced() throws Exception {
        Path data = Files.createDirectories(root.resolve("data").resolve("broker"));
        Files.writeString(data.resolve("store"), "x");
        Fsync.file(data.resolve("store"));
        Fsync.directories(root.resolve("data"));
        fs.cut();
        assertThat(Files.readString(root.resolve("data").resolve("broker").resolve("store")))
                .isEqualTo("x");
    }
}
