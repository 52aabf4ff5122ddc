package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.edgebridge.central.Inbox;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.tls.DevCertificates;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ingest.certFile/ingest.keyFile against a real TLS server that requires a client certificate (the JDK's HttpsServer
 * with needClientAuth, in front of the reference central): commands reach central once; a certificate rotated on disk
 * is presented from the next request, without a restart; an expired one, or a rotation left half-written, loses
 * nothing and raises its alarm on /api/status and /metrics. Shipped defaults but for the fast backoff of TestSite.
 */
class ClientCertificateIT {
    /** A central refusing the certificate opens the breaker (forwarder.breakerOpenFor, 30 s): the probe after it. */
    private static final Duration PAST_THE_BREAKER = Duration.ofSeconds(75);

    @TempDir
    Path dir;

    private DevCertificates.Material ca;
    private Path certFile;
    private Path keyFile;

    @BeforeEach
    void material() throws Exception {
        ca = DevCertificates.ensure(dir.resolve("tls"));
        certFile = dir.resolve("tls/bridge.pem");
        keyFile = dir.resolve("tls/bridge-key.pem");
    }

    private String issue(Instant notBefore, Instant notAfter) throws Exception {
        DevCertificates.issueClient(dir.resolve("tls"), "edge-01", notBefore, notAfter, certFile, keyFile);
        return serial(certFile);
    }

    private String validFor(Duration d) throws Exception {
        return issue(Instant.now().minus(Duration.ofHours(1)), Instant.now().plus(d));
    }

    /**
     * The reference central (in a site of its own), the mutual-TLS front before it, the bridge that reaches central
     * through the front with the client certificate, and a connected device.
     */
    private final class Rig implements AutoCloseable {
        final TestSite plain = new TestSite(dir.resolve("unused"));
        final MutualTlsFront front;
        final TestSite site;
        final DeviceSimulator device;

        Rig(String clientId) throws Exception {
            front = new MutualTlsFront(ca, plain.centralPort);
            site = new TestSite(
                    dir.resolve("data"),
                    "ingest.url=" + front.url(),
                    "ingest.caFile=" + ca.caFile(),
                    "ingest.certFile=" + certFile,
                    "ingest.keyFile=" + keyFile);
            device = site.device(clientId);
            device.connectAndSubscribe();
        }

        @Override
        public void close() {
            device.close();
            site.close();
            front.close();
            plain.close();
        }
    }

    @Test
    void a_rotated_certificate_is_presented_from_the_next_request_without_a_restart() throws Exception {
        String first = validFor(Duration.ofDays(300));
        try (Rig rig = new Rig("dev-mtls")) {
            publish(rig.device, "MTLS-1");
            assertThat(rig.device.awaitFinal("MTLS-1").path("status").asText()).isEqualTo("accepted");
            assertThat(rig.front.admittedSerials).containsOnly(first);
            JsonNode status = rig.site.getJson("/api/status");
            assertThat(status.path("central").path("clientCertificate").asText())
                    .isEqualTo("file " + certFile);
            JsonNode cert = status.path("forwarder").path("clientCertificate");
            assertThat(cert.path("serial").asText()).isEqualTo(first);
            assertThat(cert.path("subject").asText()).isEqualTo("CN=edge-01");
            assertThat(rig.site.get("/metrics").body())
                    .contains("edgebridge_ingest_client_certificate_expiry_timestamp_seconds");

            String second = validFor(Duration.ofDays(600));
            publish(rig.device, "MTLS-2");
            assertThat(rig.device.awaitFinal("MTLS-2").path("status").asText()).isEqualTo("accepted");
            assertThat(rig.front.admittedSerials.get(rig.front.admittedSerials.size() - 1))
                    .as("the new certificate")
                    .isEqualTo(second);
            assertThat(rig.site
                            .getJson("/api/status")
                            .path("forwarder")
                            .path("clientCertificate")
                            .path("reloads")
                            .asLong())
                    .isEqualTo(1);
            assertAppliedOnce(rig.plain, List.of("MTLS-1", "MTLS-2"));
        }
    }

    @Test
    void an_expired_certificate_loses_nothing_raises_its_alarm_and_a_renewed_one_sends_everything_once()
            throws Exception {
        issue(Instant.now().minus(Duration.ofDays(30)), Instant.now().minus(Duration.ofHours(1)));
        try (Rig rig = new Rig("dev-expired")) {
            List<String> ids = List.of("EXPIRED-1", "EXPIRED-2", "EXPIRED-3");
            ids.forEach(id -> publish(rig.device, id));
            ids.forEach(id -> rig.device.awaitReceipt(id, "stored"));
            await().atMost(DeviceSimulator.WAIT)
                    .until(() -> lastError(rig.site)
                            .contains("central does not take the client certificate, which expired at"));
            assertThat(alarmCodes(rig.site)).contains("ingest_certificate_expired");
            assertThat(rig.site.get("/metrics").body())
                    .contains("edgebridge_alarm_active{code=\"ingest_certificate_expired\"} 1");
            JsonNode outbox = rig.site.getJson("/api/status").path("outbox");
            assertThat(outbox.path("open").asLong()).as("kept").isEqualTo(3);
            assertThat(outbox.path("counts").path("parked").asLong()).isZero();
            assertThat(rig.plain.central.inbox().size()).isZero();

            String renewed = validFor(Duration.ofDays(300));
            await().atMost(PAST_THE_BREAKER)
                    .until(() -> rig.plain.central.inbox().size() == 3);
            ids.forEach(
                    id -> assertThat(rig.device.awaitFinal(id).path("status").asText())
                            .isEqualTo("accepted"));
            assertThat(rig.front.admittedSerials).containsOnly(renewed);
            assertAppliedOnce(rig.plain, ids);
            assertThat(alarmCodes(rig.site)).doesNotContain("ingest_certificate_expired");
        }
    }

    @Test
    void a_certificate_within_the_warning_raises_the_expiring_alarm_and_still_sends() throws Exception {
        validFor(Duration.ofDays(5));
        try (Rig rig = new Rig("dev-expiring")) {
            publish(rig.device, "EXPIRING-1");
            assertThat(rig.device.awaitFinal("EXPIRING-1").path("status").asText())
                    .isEqualTo("accepted");
            assertThat(alarmCodes(rig.site)).contains("ingest_certificate_expiring");
            assertThat(alarm(rig.site, "ingest_certificate_expiring"))
                    .contains("in 4 days", "ingest.certExpiryWarning");
        }
    }

    @Test
    void a_rotation_left_half_written_keeps_the_previous_pair_says_so_and_takes_the_pair_once_complete()
            throws Exception {
        String first = validFor(Duration.ofDays(300));
        try (Rig rig = new Rig("dev-half")) {
            Path next = dir.resolve("tls/next.pem");
            Path nextKey = dir.resolve("tls/next-key.pem");
            Instant now = Instant.now();
            DevCertificates.issueClient(
                    dir.resolve("tls"),
                    "edge-01",
                    now.minus(Duration.ofHours(1)),
                    now.plus(Duration.ofDays(400)),
                    next,
                    nextKey);
            Files.copy(next, certFile, java.nio.file.StandardCopyOption.REPLACE_EXISTING); // the key not yet

            publish(rig.device, "HALF-1");
            assertThat(rig.device.awaitFinal("HALF-1").path("status").asText()).isEqualTo("accepted");
            assertThat(rig.front.admittedSerials).containsOnly(first);
            assertThat(alarm(rig.site, "ingest_certificate_unusable"))
                    .contains("is not the key of the certificate", first);

            Files.copy(nextKey, keyFile, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            publish(rig.device, "HALF-2");
            assertThat(rig.device.awaitFinal("HALF-2").path("status").asText()).isEqualTo("accepted");
            assertThat(rig.front.admittedSerials.get(rig.front.admittedSerials.size() - 1))
                    .isEqualTo(serial(next));
            assertThat(alarmCodes(rig.site)).doesNotContain("ingest_certificate_unusable");
            assertAppliedOnce(rig.plain, List.of("HALF-1", "HALF-2"));
        }
    }

    private static void assertAppliedOnce(TestSite plain, List<String> ids) {
        assertThat(plain.central.inbox().entries())
                .extracting(Inbox.Entry::eventId)
                .containsExactlyInAnyOrderElementsOf(ids);
        assertThat(plain.central.inbox().entries())
                .allSatisfy(e -> assertThat(e.deliveries()).isEqualTo(1));
    }

    private static String serial(Path pem) {
        return org.edgebridge.tls.PemFiles.certificates(pem)
                .get(0)
                .getSerialNumber()
                .toString(16)
                .toUpperCase(java.util.Locale.ROOT);
    }

    private static void publish(DeviceSimulator device, String id) {
        device.publish("workorder/arrive", DeviceSimulator.command(id, "\"action\":\"ARRIVE\""));
    }

    private static String lastError(TestSite site) throws Exception {
        return site.getJson("/api/status").path("forwarder").path("lastError").asText("");
    }

    static List<String> alarmCodes(TestSite site) throws Exception {
        return site.getJson("/api/status").path("alarms").findValuesAsText("code");
    }

    static String alarm(TestSite site, String code) throws Exception {
        for (JsonNode a : site.getJson("/api/status").path("alarms")) {
            if (a.path("code").asText().equals(code)) {
                return a.path("message").asText();
            }
        }
        return "";
    }
}
