package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.edgebridge.central.CentralSim;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.tls.DevCertificates;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code edge-bridge check-central} as a technician runs it (the jar, its own process, shipped defaults but for the
 * ingest keys), against the real parts: central behind TLS that requires a client certificate ({@link MutualTlsFront}
 * before the reference central), a real OAuth2 server ({@link AuthorizationServer}) whose tokens central checks, and a
 * real tinyproxy. Every step passes against a central that is right (exit 0), and each step fails, with its reason
 * and fix, against one that is wrong in that step (exit 1). Names resolve through a hosts file of the test's
 * ({@code -Djdk.net.hosts.file}): localhost is 127.0.0.1, any other name has no address, and no lookup leaves the box.
 * The reports of the right central and of a wrong one go to target/check-central/.
 */
class CheckCentralIT {
    private static final String SECRET = "the-bridge-client-secret";

    @TempDir
    Path dir;

    private DevCertificates.Material ca;
    private Path certFile;
    private Path keyFile;
    private Path hosts;

    @BeforeEach
    void material() throws Exception {
        ca = DevCertificates.ensure(dir.resolve("tls"));
        certFile = dir.resolve("tls/bridge.pem");
        keyFile = dir.resolve("tls/bridge-key.pem");
        validClientCertificate();
        hosts = Files.writeString(dir.resolve("hosts"), "127.0.0.1 localhost\n");
    }

    private void validClientCertificate() {
        Instant now = Instant.now();
        DevCertificates.issueClient(
                dir.resolve("tls"),
                "edge-01",
                now.minus(Duration.ofHours(1)),
                now.plus(Duration.ofDays(300)),
                certFile,
                keyFile);
    }

    /** The reference central behind the mutual-TLS front; its tokens checked with the authorization server. */
    private final class Central implements AutoCloseable {
        final AuthorizationServer auth;
        final CentralSim plain;
        final MutualTlsFront front;
        final Path secret;

        Central() throws Exception {
            int authPort = Ports.freeOutsideEphemeralRange();
            auth = AuthorizationServer.start(authPort, SECRET, Duration.ofHours(1));
            plain = new CentralSim(
                            AuthorizationServer.centralCheck(authPort, new CopyOnWriteArrayList<>()),
                            16L << 20,
                            Clock.systemUTC())
                    .start("127.0.0.1", 0);
            front = new MutualTlsFront(ca, plain.port());
            secret = secretFile(SECRET);
        }

        /** The settings of a box that is right for this central, through {@code proxy}. */
        Map<String, String> right(TinyProxy proxy) {
            Map<String, String> s = new LinkedHashMap<>();
            s.put("ingest.url", "https://127.0.0.1:" + front.port() + "/ingest");
            s.put("ingest.caFile", ca.caFile().toString());
            s.put("ingest.certFile", certFile.toString());
            s.put("ingest.keyFile", keyFile.toString());
            s.put("ingest.proxy", "http://localhost:" + proxy.port);
            s.put("ingest.oauth2.tokenUrl", "http://127.0.0.1:" + auth.port + "/oauth2/token");
            s.put("ingest.oauth2.clientId", AuthorizationServer.CLIENT_ID);
            s.put("ingest.oauth2.clientSecretFile", secret.toString());
            s.put("ingest.oauth2.scope", AuthorizationServer.SCOPE);
            return s;
        }

        @Override
        public void close() {
            front.close();
            plain.close();
            auth.close();
        }
    }

    private Path secretFile(String secret) throws Exception {
        Path file = dir.resolve("secret-" + secret.hashCode());
        Files.writeString(file, secret + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }

    @Test
    void against_a_central_that_is_right_every_step_passes_and_against_wrong_ones_each_step_fails_with_its_fix()
            throws Exception {
        TinyProxy.requireInstalled();
        try (Central central = new Central();
                TinyProxy proxy = TinyProxy.start(dir.resolve("proxy"), Ports.freeOutsideEphemeralRange(), true)) {
            Map<String, String> right = central.right(proxy);
            Outcome ok = check(right);
            assertThat(ok.statuses())
                    .as(ok.text)
                    .containsExactly(
                            entry("dns", "pass"),
                            entry("tcp", "pass"),
                            entry("proxy", "pass"),
                            entry("tls", "pass"),
                            entry("client-certificate", "pass"),
                            entry("oauth2-token", "pass"),
                            entry("request", "pass"),
                            entry("clock", "pass"));
            assertThat(ok.exit).isZero();
            assertThat(ok.detail("client-certificate")).contains("CN=edge-01", "central asked for it and took it");
            assertThat(ok.detail("request")).contains("with the OAuth2 token");
            assertThat(central.plain.checks())
                    .as("central answered the check requests")
                    .isEqualTo(2);
            assertThat(central.plain.inbox().size()).as("and applied nothing").isZero();
            assertThat(proxy.logText()).contains("CONNECT 127.0.0.1:" + central.front.port());
            Files.createDirectories(Path.of("target", "check-central"));
            Files.writeString(Path.of("target", "check-central", "right-central.txt"), ok.text);

            Outcome dns = check(with(right, "ingest.proxy", "http://proxy.invalid:" + proxy.port));
            assertFails(dns, "dns", "proxy.invalid does not resolve", "check the host name in ingest.proxy");
            assertThat(dns.status("request")).isEqualTo("skip");

            int closed = Ports.freeOutsideEphemeralRange();
            assertFails(
                    check(with(right, "ingest.proxy", "http://localhost:" + closed)),
                    "tcp",
                    "nothing accepts connections at the proxy (ingest.proxy) at localhost:" + closed,
                    "check the port in ingest.proxy");

            DevCertificates.Material stranger = DevCertificates.ensure(dir.resolve("other-ca"));
            assertFails(
                    check(with(right, "ingest.caFile", stranger.caFile().toString())),
                    "tls",
                    "central's certificate chain is not signed by a CA in ingest.caFile=" + stranger.caFile(),
                    "set ingest.caFile to the PEM file of the CA that signed central's certificate");

            Outcome noCertificate = check(without(right, "ingest.certFile", "ingest.keyFile"));
            assertFails(
                    noCertificate,
                    "client-certificate",
                    "central asks for a client certificate and refused the connection " + "without one",
                    "set ingest.certFile and ingest.keyFile");
            assertThat(noCertificate.status("tls")).isEqualTo("pass");

            Path strangerCert = dir.resolve("other-ca/bridge.pem");
            Path strangerKey = dir.resolve("other-ca/bridge-key.pem");
            Instant now = Instant.now();
            DevCertificates.issueClient(
                    dir.resolve("other-ca"),
                    "edge-01",
                    now.minus(Duration.ofHours(1)),
                    now.plus(Duration.ofDays(30)),
                    strangerCert,
                    strangerKey);
            assertFails(
                    check(with(
                            with(right, "ingest.certFile", strangerCert.toString()),
                            "ingest.keyFile",
                            strangerKey.toString())),
                    "client-certificate",
                    "central refused the client certificate CN=edge-01",
                    "issued by a CA central trusts");

            assertFails(
                    check(with(
                            right,
                            "ingest.oauth2.clientSecretFile",
                            secretFile("not-the-secret").toString())),
                    "oauth2-token",
                    "answered 401",
                    "check ingest.oauth2.clientId and the secret in ingest.oauth2.clientSecretFile");

            Outcome wrongPath =
                    check(with(right, "ingest.url", "https://127.0.0.1:" + central.front.port() + "/ingest/v2"));
            assertFails(wrongPath, "request", "central answered 404", "check the path in ingest.url");
            Files.writeString(Path.of("target", "check-central", "wrong-central.txt"), wrongPath.text);

            // the proxy refuses this box: a tinyproxy that admits no loopback client
            try (TinyProxy refusing =
                    TinyProxy.start(dir.resolve("refusing"), Ports.freeOutsideEphemeralRange(), false)) {
                assertFails(
                        check(with(right, "ingest.proxy", "http://localhost:" + refusing.port)),
                        "proxy",
                        "answered CONNECT 127.0.0.1:" + central.front.port() + " with 'HTTP/1.",
                        "ask the proxy's admin");
            }

            // expired last: the files are shared by the cases above
            DevCertificates.issueClient(
                    dir.resolve("tls"),
                    "edge-01",
                    now.minus(Duration.ofDays(30)),
                    now.minus(Duration.ofHours(1)),
                    certFile,
                    keyFile);
            assertFails(check(right), "client-certificate", "expired at", "renew it");
        }
    }

    @Test
    void a_token_central_refuses_fails_the_request_and_a_central_whose_clock_is_off_fails_the_clock_step()
            throws Exception {
        Clock fiveMinutesAhead = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(5));
        try (CentralSim central =
                new CentralSim(Optional.of("the-token"), 16L << 20, fiveMinutesAhead).start("127.0.0.1", 0)) {
            Map<String, String> s = new LinkedHashMap<>();
            s.put("ingest.url", "http://localhost:" + central.port() + "/ingest");
            s.put("ingest.token", "not-the-token");
            Outcome refused = check(s);
            assertFails(refused, "request", "central answered 401", "check ingest.token");

            Outcome skewed = check(with(s, "ingest.token", "the-token"));
            assertFails(skewed, "clock", "s behind central's", "turn on NTP");
            assertThat(skewed.detail("clock"))
                    .as("300 s, within the measure's uncertainty")
                    .containsPattern("the box's clock is (29[5-9]|30[0-5])\\.\\d s behind central's");
            assertThat(skewed.status("request")).isEqualTo("pass");
            assertThat(central.inbox().size()).isZero();
        }
    }

    private static void assertFails(Outcome outcome, String step, String reason, String fix) {
        assertThat(outcome.status(step)).as(outcome.text).isEqualTo("fail");
        assertThat(outcome.detail(step)).as(outcome.text).contains(reason);
        assertThat(outcome.step(step).path("fix").asText()).as(outcome.text).contains(fix);
        assertThat(outcome.exit).as("exit code when a step failed").isEqualTo(1);
        assertThat(outcome.text).contains("FAIL  " + step).contains("fix: ");
    }

    private static Map<String, String> with(Map<String, String> settings, String key, String value) {
        Map<String, String> s = new LinkedHashMap<>(settings);
        s.put(key, value);
        return s;
    }

    private static Map<String, String> without(Map<String, String> settings, String... keys) {
        Map<String, String> s = new LinkedHashMap<>(settings);
        List.of(keys).forEach(s::remove);
        return s;
    }

    private static Map.Entry<String, String> entry(String step, String status) {
        return Map.entry(step, status);
    }

    /** The JSON report, the text one, and the exit code (the same for both). */
    private record Outcome(JsonNode json, String text, int exit) {
        JsonNode step(String name) {
            for (JsonNode s : json.path("steps")) {
                if (s.path("step").asText().equals(name)) {
                    return s;
                }
            }
            throw new AssertionError("no step " + name + " in " + json);
        }

        String status(String name) {
            return step(name).path("status").asText();
        }

        String detail(String name) {
            return step(name).path("detail").asText();
        }

        List<Map.Entry<String, String>> statuses() {
            List<Map.Entry<String, String>> out = new ArrayList<>();
            json.path("steps")
                    .forEach(s -> out.add(
                            Map.entry(s.path("step").asText(), s.path("status").asText())));
            return out;
        }
    }

    private Outcome check(Map<String, String> settings) throws Exception {
        Run json = run(settings, true);
        Run text = run(settings, false);
        assertThat(text.exit).as("the same exit code with and without --json").isEqualTo(json.exit);
        return new Outcome(DeviceSimulator.JSON.readTree(json.out), text.out, json.exit);
    }

    private record Run(String out, int exit) {}

    private Run run(Map<String, String> settings, boolean json) throws Exception {
        List<String> command = BridgeJar.command("96m", List.of("-Djdk.net.hosts.file=" + hosts));
        command.add("check-central");
        if (json) {
            command.add("--json");
        }
        command.add("--set");
        command.add("data.dir=" + dir.resolve("data"));
        settings.forEach((k, v) -> {
            command.add("--set");
            command.add(k + "=" + v);
        });
        Path out = Files.createTempFile(dir, "check", ".out");
        Process p = new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(ProcessBuilder.Redirect.appendTo(
                        dir.resolve("check.err").toFile()))
                .start();
        assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("check-central ends").isTrue();
        return new Run(Files.readString(out, StandardCharsets.UTF_8), p.exitValue());
    }
}
