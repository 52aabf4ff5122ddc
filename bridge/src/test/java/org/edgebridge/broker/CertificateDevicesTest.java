package org.edgebridge.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CertificateDevicesTest {
    @TempDir
    Path dir;

    @Test
    void past_auth_max_certificate_devices_new_ids_are_counted_not_remembered_and_the_file_stays_bounded()
            throws Exception {
        Path file = dir.resolve("certificate-devices");
        CertificateDevices devices = CertificateDevices.load(file, 2, Optional.empty());
        devices.remember("a");
        devices.remember("b");
        devices.remember("a");
        devices.remember("c");
        assertThat(devices.remembered()).isEqualTo(2);
        assertThat(devices.notRemembered()).isEqualTo(1);
        assertThat(devices.needsCertificate("a")).isTrue();
        assertThat(devices.needsCertificate("c")).isFalse();
        assertThat(Files.readAllLines(file)).containsExactly("a", "b");

        CertificateDevices reloaded = CertificateDevices.load(file, 1, Optional.empty());
        assertThat(reloaded.remembered())
                .as("a file longer than the limit is cut at it")
                .isEqualTo(1);
        assertThat(reloaded.needsCertificate("a")).isTrue();
    }

    @Test
    void a_pattern_makes_matching_ids_need_their_certificate_as_a_whole_match() {
        CertificateDevices devices =
                CertificateDevices.load(dir.resolve("none"), 10, Optional.of(Pattern.compile("terminal-\\d+")));
        assertThat(devices.needsCertificate("terminal-07")).isTrue();
        assertThat(devices.needsCertificate("x-terminal-07")).isFalse();
        assertThat(devices.needsCertificate("terminal-07x")).isFalse();
    }
}
