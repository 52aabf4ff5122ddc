package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hivemq.client.mqtt.mqtt3.exceptions.Mqtt3ConnAckException;
import com.hivemq.client.mqtt.mqtt3.message.connect.connack.Mqtt3ConnAckReturnCode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.edgebridge.central.Inbox;
import org.edgebridge.config.ConfigLoader;
import org.edgebridge.config.ConfigWarnings;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.tls.DevCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 24, point 6: no impersonation across listeners. With tls.clientAuth=required, auth.anonymous=true and the
 * plain listener open, an anonymous client on the plain port connected as a device that uses mTLS, got
 * sessionPresent=1, kicked the real device off and had a command applied as it. Now a client id that has once
 * connected with its certificate (remembered in data.dir/certificate-devices, across restarts), or that matches
 * auth.certificateClientIds, needs its certificate on every listener. Real TLS handshakes, real clients.
 */
class CertificateImpersonationIT {
    @TempDir
    Path dir;

    private String[] sets(DevCertificates.Material m, String... more) {
        List<String> sets = new ArrayList<>(List.of(
                "tls.port=any",
                "tls.certFile=" + m.certFile(),
                "tls.keyFile=" + m.keyFile(),
                "tls.caFile=" + m.caFile(),
                "tls.clientAuth=required",
                "auth.anonymous=true"));
        sets.addAll(List.of(more));
        return sets.toArray(String[]::new);
    }

    @Test
    void an_anonymous_client_on_the_plain_port_cannot_take_the_client_id_of_a_device_that_used_its_certificate()
            throws Exception {
        DevCertificates.Material m = DevCertificates.ensure(dir.resolve("tls"));
        DevCertificates.DeviceMaterial cert = DevCertificates.issueDevice(dir.resolve("tls"), "dev-mtls");
        Path data = dir.resolve("data");
        try (TestSite site = new TestSite(data, sets(m));
                DeviceSimulator real = DeviceSimulator.builder("dev-mtls", site.tlsPort)
                        .tls(TlsMaterial.client(m.caFile(), cert.certFile(), cert.keyFile()))
                        .build()) {
            real.connect(false);
            real.subscribe(real.receiptTopic());
            real.publish("t", DeviceSimulator.command("REAL-1", ""));
            real.awaitReceipt("REAL-1", "accepted");

            assertRefusedNotAuthorized(site.device("dev-mtls"));
            assertThat(real.isConnected()).as("the real device stays connected").isTrue();
            real.publish("t", DeviceSimulator.command("REAL-2", ""));
            real.awaitReceipt("REAL-2", "accepted");
            assertThat(site.central.inbox().entries())
                    .extracting(Inbox.Entry::eventId)
                    .containsExactly("REAL-1", "REAL-2");
            assertThat(site.get("/metrics").body())
                    .contains("edgebridge_broker_logins_refused_total{reason=\"certificate_needed\"} 1.0")
                    .contains("edgebridge_broker_certificate_devices 1.0");
            assertThat(site.getJson("/api/status")
                            .path("certificateDevices")
                            .path("remembered")
                            .asInt())
                    .isEqualTo(1);
            try (DeviceSimulator other = site.device("dev-anonymous")) {
                other.connect();
                assertThat(other.isConnected())
                        .as("an id never seen with a certificate stays anonymous")
                        .isTrue();
            }
        }
        assertThat(Files.readAllLines(data.resolve("certificate-devices"))).containsExactly("dev-mtls");
        try (TestSite again = new TestSite(data, sets(m))) {
            assertRefusedNotAuthorized(again.device("dev-mtls"));
        }
    }

    @Test
    void a_client_id_matching_auth_certificate_client_ids_needs_its_certificate_before_it_ever_used_it()
            throws Exception {
        DevCertificates.Material m = DevCertificates.ensure(dir.resolve("tls"));
        DevCertificates.DeviceMaterial cert = DevCertificates.issueDevice(dir.resolve("tls"), "terminal-07");
        try (TestSite site = new TestSite(dir.resolve("data"), sets(m, "auth.certificateClientIds=terminal-.*"))) {
            assertRefusedNotAuthorized(site.device("terminal-07"));
            try (DeviceSimulator real = DeviceSimulator.builder("terminal-07", site.tlsPort)
                    .tls(TlsMaterial.client(m.caFile(), cert.certFile(), cert.keyFile()))
                    .build()) {
                real.connectAndSubscribe();
                real.publish("t", DeviceSimulator.command("TERM-1", ""));
                real.awaitReceipt("TERM-1", "accepted");
            }
        }
    }

    @Test
    void check_config_warns_that_certificate_devices_can_be_impersonated_before_their_first_certificate_login() {
        DevCertificates.Material m = DevCertificates.ensure(dir.resolve("tls"));
        assertThat(ConfigWarnings.of(ConfigLoader.load(null, List.of(sets(m, "admin.token=0123456789abcdef")))))
                .singleElement()
                .satisfies(w -> assertThat(w)
                        .startsWith(
                                "tls.clientAuth=required with auth.anonymous=true and the plain listener on (mqtt.port=1883)")
                        .contains("set auth.certificateClientIds"));
        assertThat(ConfigWarnings.of(ConfigLoader.load(
                        null,
                        List.of(sets(m, "admin.token=0123456789abcdef", "auth.certificateClientIds=terminal-.*")))))
                .isEmpty();
        assertThat(ConfigWarnings.of(
                        ConfigLoader.load(null, List.of(sets(m, "admin.token=0123456789abcdef", "mqtt.port=0")))))
                .isEmpty();
    }

    private static void assertRefusedNotAuthorized(DeviceSimulator device) {
        try (device) {
            assertThatThrownBy(device::connect)
                    .hasCauseInstanceOf(Mqtt3ConnAckException.class)
                    .satisfies(e -> assertThat(((Mqtt3ConnAckException) e.getCause())
                                    .getMqttMessage()
                                    .getReturnCode())
                            .isEqualTo(Mqtt3ConnAckReturnCode.NOT_AUTHORIZED));
        }
    }
}
