package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.hivemq.client.mqtt.mqtt3.exceptions.Mqtt3ConnAckException;
import com.hivemq.client.mqtt.mqtt3.message.connect.connack.Mqtt3ConnAckReturnCode;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.edgebridge.broker.PasswordFile;
import org.edgebridge.central.Inbox;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.tls.DevCertificates;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Device security with real TLS handshakes and real clients (docs/protocol.md §1.1-1.3: listeners, identity, topics). */
class SecurityIT {
    @TempDir
    Path dir;

    private DevCertificates.Material tls() {
        return DevCertificates.ensure(dir.resolve("tls"));
    }

    private String[] tlsSets(DevCertificates.Material m, String... more) {
        List<String> sets = new ArrayList<>(List.of(
                "tls.port=any",
                "tls.certFile=" + m.certFile(),
                "tls.keyFile=" + m.keyFile(),
                "tls.caFile=" + m.caFile()));
        sets.addAll(List.of(more));
        return sets.toArray(String[]::new);
    }

    @Test
    void tls_with_the_dev_ca_carries_commands_and_receipts_and_a_client_trusting_another_ca_fails() throws Exception {
        DevCertificates.Material m = tls();
        try (TestSite site = new TestSite(dir.resolve("data"), tlsSets(m));
                DeviceSimulator device = DeviceSimulator.builder("dev-tls", site.tlsPort)
                        .tls(TlsMaterial.client(m.caFile(), null, null))
                        .build()) {
            device.connectAndSubscribe();
            device.publish("t", DeviceSimulator.command("TLS-1", ""));
            assertThat(device.awaitFinal("TLS-1").path("status").asText()).isEqualTo("accepted");

            DevCertificates.Material other = DevCertificates.ensure(dir.resolve("other-ca"));
            try (DeviceSimulator stranger = DeviceSimulator.builder("dev-stranger", site.tlsPort)
                    .tls(TlsMaterial.client(other.caFile(), null, null))
                    .build()) {
                assertThatThrownBy(stranger::connect)
                        .as("server certificate not trusted")
                        .isInstanceOf(CompletionException.class);
            }
        }
    }

    @Test
    void with_client_auth_required_a_device_needs_a_certificate_naming_its_own_client_id() throws Exception {
        DevCertificates.Material m = tls();
        DevCertificates.DeviceMaterial x = DevCertificates.issueDevice(dir.resolve("tls"), "dev-x");
        DevCertificates.DeviceMaterial y = DevCertificates.issueDevice(dir.resolve("tls"), "dev-y");
        try (TestSite site = new TestSite(
                dir.resolve("data"), tlsSets(m, "tls.clientAuth=required", "mqtt.port=0", "auth.anonymous=false"))) {
            try (DeviceSimulator device = DeviceSimulator.builder("dev-x", site.tlsPort)
                    .tls(TlsMaterial.client(m.caFile(), x.certFile(), x.keyFile()))
                    .build()) {
                device.connectAndSubscribe();
                device.publish("t", DeviceSimulator.command("MTLS-1", ""));
                assertThat(device.awaitFinal("MTLS-1").path("status").asText()).isEqualTo("accepted");
            }
            try (DeviceSimulator noCert = DeviceSimulator.builder("dev-x", site.tlsPort)
                    .tls(TlsMaterial.client(m.caFile(), null, null))
                    .build()) {
                assertThatThrownBy(noCert::connect).as("no client certificate").isInstanceOf(CompletionException.class);
            }
            try (DeviceSimulator impostor = DeviceSimulator.builder("dev-x", site.tlsPort)
                    .tls(TlsMaterial.client(m.caFile(), y.certFile(), y.keyFile()))
                    .build()) {
                assertThatThrownBy(impostor::connect)
                        .hasCauseInstanceOf(Mqtt3ConnAckException.class)
                        .satisfies(e -> assertThat(((Mqtt3ConnAckException) e.getCause())
                                        .getMqttMessage()
                                        .getReturnCode())
                                .isEqualTo(Mqtt3ConnAckReturnCode.NOT_AUTHORIZED));
            }
            assertThat(site.central.inbox().entries())
                    .extracting(Inbox.Entry::deviceId)
                    .containsOnly("dev-x");
        }
    }

    @Test
    void password_auth_admits_registered_devices_and_refuses_everything_else_with_connack_4() throws Exception {
        Path passwords = dir.resolve("devices.passwd");
        PasswordFile.addDevice(passwords, "dev-p", "user-p", "s3cret-p");
        PasswordFile.addDevice(passwords, "dev-q", "user-q", "s3cret-q");
        assertThat(Files.readString(passwords)).doesNotContain("s3cret");
        try (TestSite site =
                new TestSite(dir.resolve("data"), "auth.anonymous=false", "auth.passwordFile=" + passwords)) {
            try (DeviceSimulator ok =
                    site.deviceWith("dev-p").credentials("user-p", "s3cret-p").build()) {
                ok.connectAndSubscribe();
                ok.publish("t", DeviceSimulator.command("PW-1", ""));
                ok.awaitFinal("PW-1");
            }
            assertRefused(
                    site.deviceWith("dev-p").credentials("user-p", "wrong").build(),
                    Mqtt3ConnAckReturnCode.BAD_USER_NAME_OR_PASSWORD);
            assertRefused(
                    site.deviceWith("dev-unknown")
                            .credentials("user-u", "s3cret-p")
                            .build(),
                    Mqtt3ConnAckReturnCode.BAD_USER_NAME_OR_PASSWORD);
            assertRefused(
                    site.deviceWith("dev-q").credentials("user-p", "s3cret-p").build(),
                    Mqtt3ConnAckReturnCode.BAD_USER_NAME_OR_PASSWORD);
            assertRefused(site.device("dev-p"), Mqtt3ConnAckReturnCode.BAD_USER_NAME_OR_PASSWORD);
            assertRefused(
                    site.deviceWith("dev-p").credentials("cert:dev-p", "guess").build(),
                    Mqtt3ConnAckReturnCode.BAD_USER_NAME_OR_PASSWORD);
            assertRefused(site.device("dev/+/#"), Mqtt3ConnAckReturnCode.IDENTIFIER_REJECTED);
        }
    }

    private static void assertRefused(DeviceSimulator device, Mqtt3ConnAckReturnCode code) {
        try (device) {
            assertThatThrownBy(device::connect)
                    .hasCauseInstanceOf(Mqtt3ConnAckException.class)
                    .satisfies(e -> assertThat(((Mqtt3ConnAckException) e.getCause())
                                    .getMqttMessage()
                                    .getReturnCode())
                            .isEqualTo(code));
        }
    }

    @Test
    void mosquitto_clients_nobody_here_wrote_talk_to_the_bridge_over_tls() throws Exception {
        Path rr = Path.of("/usr/bin/mosquitto_rr");
        if (System.getenv("CI") == null) {
            Assumptions.assumeTrue(Files.isExecutable(rr), "mosquitto-clients is not installed (.ci/run installs it)");
        }
        DevCertificates.Material m = tls();
        try (TestSite site = new TestSite(dir.resolve("data"), tlsSets(m))) {
            List<String> command = List.of(
                    rr.toString(),
                    "-V",
                    "mqttv311",
                    "-h",
                    "127.0.0.1",
                    "-p",
                    String.valueOf(site.tlsPort),
                    "--cafile",
                    m.caFile().toString(),
                    "-i",
                    "dev-mosq",
                    "-c",
                    "-q",
                    "1",
                    "-W",
                    "10",
                    "-e",
                    "devices/dev-mosq/receipts",
                    "-t",
                    "devices/dev-mosq/commands/workorder/arrive",
                    "-m",
                    "{\"commandId\":\"MOSQ-1\",\"workOrderId\":\"WO-9\"}");
            String first = run(command);
            assertThat(first).contains("\"commandId\":\"MOSQ-1\"", "\"status\":\"stored\"");
            await().atMost(DeviceSimulator.WAIT)
                    .until(() -> site.central.inbox().size() == 1);
            String second = run(command);
            assertThat(second).contains("\"commandId\":\"MOSQ-1\"", "\"status\":\"accepted\"", "\"final\":true");
            assertThat(site.central.inbox().entries().get(0).deliveries()).isEqualTo(1);
        }
    }

    private static String run(List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).as("mosquitto_rr finished").isTrue();
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    @Test
    void a_takeover_storm_raises_the_alarm_and_other_devices_are_unaffected() throws Exception {
        try (TestSite site = new TestSite(dir.resolve("data"), "mqtt.takeoverAlarmPerMinute=20");
                DeviceSimulator bystander = site.device("dev-bystander")) {
            bystander.connectAndSubscribe();
            List<DeviceSimulator> storm = new ArrayList<>();
            try {
                for (int i = 0; i < 50; i++) {
                    DeviceSimulator d = site.device("dev-storm");
                    d.connect();
                    storm.add(d);
                }
                HttpClient http = HttpClient.newHttpClient();
                await().atMost(DeviceSimulator.WAIT).until(() -> {
                    String body = http.send(
                                    HttpRequest.newBuilder(URI.create(site.adminUrl("/api/status")))
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString())
                            .body();
                    return body.contains("takeover_storm") && body.contains("dev-storm");
                });
                JsonNode devices = DeviceSimulator.JSON
                        .readTree(http.send(
                                        HttpRequest.newBuilder(URI.create(site.adminUrl("/api/devices")))
                                                .build(),
                                        HttpResponse.BodyHandlers.ofString())
                                .body())
                        .path("devices");
                JsonNode stormDevice = null;
                for (JsonNode d : devices) {
                    if (d.path("clientId").asText().equals("dev-storm")) {
                        stormDevice = d;
                    }
                }
                assertThat(stormDevice).isNotNull();
                assertThat(stormDevice.path("takeovers").asLong()).isGreaterThanOrEqualTo(20);
                String metrics = http.send(
                                HttpRequest.newBuilder(URI.create(site.adminUrl("/metrics")))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString())
                        .body();
                assertThat(metrics).contains("edgebridge_broker_takeover_storms 1.0");
                bystander.publish("t", DeviceSimulator.command("CALM-1", ""));
                assertThat(bystander.awaitFinal("CALM-1").path("status").asText())
                        .isEqualTo("accepted");
            } finally {
                storm.forEach(DeviceSimulator::close);
            }
        }
    }

    @Test
    void throttled_takeovers_are_refused_with_connack_3() throws Exception {
        try (TestSite site =
                new TestSite(dir.resolve("data"), "mqtt.takeoverAlarmPerMinute=5", "mqtt.throttleTakeovers=true")) {
            List<DeviceSimulator> storm = new ArrayList<>();
            try {
                boolean refused = false;
                for (int i = 0; i < 30 && !refused; i++) {
                    DeviceSimulator d = site.device("dev-throttled");
                    storm.add(d);
                    try {
                        d.connect();
                    } catch (CompletionException e) {
                        assertThat(e.getCause()).isInstanceOf(Mqtt3ConnAckException.class);
                        assertThat(((Mqtt3ConnAckException) e.getCause())
                                        .getMqttMessage()
                                        .getReturnCode())
                                .isEqualTo(Mqtt3ConnAckReturnCode.SERVER_UNAVAILABLE);
                        refused = true;
                    }
                }
                assertThat(refused).as("a CONNECT in the storm was refused").isTrue();
            } finally {
                storm.forEach(DeviceSimulator::close);
            }
        }
    }

    @Test
    void a_flood_of_2000_malformed_and_oversized_packets_does_not_stop_a_well_behaved_device() throws Exception {
        try (TestSite site = new TestSite(dir.resolve("data"), "mqtt.maxPacketBytes=300KiB");
                DeviceSimulator device = site.device("dev-good")) {
            device.connectAndSubscribe();
            AtomicInteger sent = new AtomicInteger();
            Thread flood = new Thread(
                    () -> {
                        byte[] connect = connectPacket("flooder");
                        while (sent.get() < 2000) {
                            try (Socket s = new Socket("127.0.0.1", site.mqttPort)) {
                                OutputStream out = s.getOutputStream();
                                switch (sent.get() % 4) {
                                    case 0 -> { // random bytes
                                        byte[] junk = new byte[64];
                                        ThreadLocalRandom.current().nextBytes(junk);
                                        out.write(junk);
                                    }
                                    case 1 -> { // PUBLISH before CONNECT
                                        out.write(new byte[] {0x32, 0x05, 0x00, 0x01, 'x', 0x00, 0x01});
                                    }
                                    case 2 -> { // CONNECT, then a PUBLISH announcing 200 MB
                                        out.write(connect);
                                        out.write(new byte[] {0x30, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x60});
                                    }
                                    default -> { // CONNECT with a broken protocol name
                                        out.write(new byte[] {
                                            0x10, 0x0c, 0x00, 0x04, 'X', 'Q', 'T', 'T', 0x04, 0x02, 0x00, 0x3c, 0x00,
                                            0x00
                                        });
                                    }
                                }
                                out.flush();
                            } catch (Exception e) {
                                // the bridge closed the connection: that is the point
                            }
                            sent.incrementAndGet();
                        }
                    },
                    "flood");
            flood.start();
            for (int i = 1; i <= 10; i++) {
                device.publish("t", DeviceSimulator.command("GOOD-" + i, ""));
            }
            for (int i = 1; i <= 10; i++) {
                assertThat(device.awaitFinal("GOOD-" + i).path("status").asText())
                        .isEqualTo("accepted");
            }
            flood.join(120_000);
            assertThat(sent.get()).isEqualTo(2000);
            device.publish("t", DeviceSimulator.command("AFTER-FLOOD", ""));
            assertThat(device.awaitFinal("AFTER-FLOOD").path("status").asText()).isEqualTo("accepted");
            assertThat(site.bridge.broker().isRunning()).isTrue();
        }
    }

    private static byte[] connectPacket(String clientId) {
        byte[] id = clientId.getBytes(StandardCharsets.UTF_8);
        int remaining = 10 + 2 + id.length;
        byte[] p = new byte[2 + remaining];
        int i = 0;
        p[i++] = 0x10;
        p[i++] = (byte) remaining;
        for (byte b : new byte[] {0x00, 0x04, 'M', 'Q', 'T', 'T', 0x04, 0x02, 0x00, 0x3c}) {
            p[i++] = b;
        }
        p[i++] = 0x00;
        p[i++] = (byte) id.length;
        System.arraycopy(id, 0, p, i, id.length);
        return p;
    }
}
