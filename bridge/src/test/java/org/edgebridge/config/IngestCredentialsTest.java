package org.edgebridge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.edgebridge.forward.auth.OAuth2Settings;
import org.edgebridge.tls.DevCertificates;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client certificate for central as check-config and the start see it: each bad file named with its key. */
class IngestCredentialsTest {
    @TempDir
    Path dir;

    private Path cert;
    private Path key;

    @BeforeEach
    void material() {
        DevCertificates.ensure(dir);
        cert = dir.resolve("bridge.pem");
        key = dir.resolve("bridge-key.pem");
        Instant now = Instant.now();
        DevCertificates.issueClient(
                dir, "edge-01", now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(90)), cert, key);
    }

    private static void assertRefused(String problem, String... sets) {
        assertThatThrownBy(() -> ConfigLoader.load(null, List.of(sets)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(problem);
    }

    @Test
    void a_usable_pair_is_taken_with_the_shipped_warning_of_14_days() {
        BridgeConfig c = ConfigLoader.load(null, List.of("ingest.certFile=" + cert, "ingest.keyFile=" + key));
        assertThat(c.forwarder().credentials().clientCertificate()).hasValueSatisfying(s -> {
            assertThat(s.certFile()).isEqualTo(cert);
            assertThat(s.expiryWarning()).isEqualTo(Duration.ofDays(14));
        });
        assertThat(ConfigLoader.load(null, List.of()).forwarder().credentials().clientCertificate())
                .isEmpty();
    }

    @Test
    void one_file_of_the_pair_alone_is_refused_naming_the_missing_key() {
        assertRefused("ingest.keyFile: must be set when ingest.certFile is set", "ingest.certFile=" + cert);
        assertRefused("ingest.certFile: must be set when ingest.keyFile is set", "ingest.keyFile=" + key);
    }

    @Test
    void a_missing_or_unreadable_file_is_named_with_its_key_and_path() throws Exception {
        assertRefused(
                "ingest.certFile=" + dir.resolve("none.pem") + ": no readable file there",
                "ingest.certFile=" + dir.resolve("none.pem"),
                "ingest.keyFile=" + key);
        assertRefused(
                "ingest.keyFile=" + dir.resolve("none-key.pem") + ": no readable file there",
                "ingest.certFile=" + cert,
                "ingest.keyFile=" + dir.resolve("none-key.pem"));
        Files.writeString(dir.resolve("junk.pem"), "not pem\n");
        assertRefused(
                "ingest.certFile=" + dir.resolve("junk.pem") + ": holds no PEM certificate",
                "ingest.certFile=" + dir.resolve("junk.pem"),
                "ingest.keyFile=" + key);
    }

    @Test
    void a_key_file_others_may_read_is_refused() throws Exception {
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
        assertRefused(
                "ingest.keyFile=" + key + ": readable by every user, refused: it holds a secret; make it owner-only",
                "ingest.certFile=" + cert,
                "ingest.keyFile=" + key);
    }

    @Test
    void a_key_of_another_certificate_or_in_another_format_is_refused_saying_how_to_fix_it() throws Exception {
        Path other = dir.resolve("other.pem");
        Path otherKey = dir.resolve("other-key.pem");
        DevCertificates.issueClient(
                dir, "edge-02", Instant.now(), Instant.now().plus(Duration.ofDays(9)), other, otherKey);
        assertRefused(
                "ingest.keyFile=" + otherKey + ": is not the key of the certificate in ingest.certFile=" + cert,
                "ingest.certFile=" + cert,
                "ingest.keyFile=" + otherKey);
        Path sec1 = dir.resolve("sec1-key.pem");
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(256);
        StringWriter text = new StringWriter();
        try (JcaPEMWriter pem = new JcaPEMWriter(text)) {
            pem.writeObject(g.generateKeyPair().getPrivate()); // BEGIN EC PRIVATE KEY (SEC1)
        }
        Files.writeString(sec1, text.toString());
        Files.setPosixFilePermissions(sec1, PosixFilePermissions.fromString("rw-------"));
        assertRefused(
                "not PKCS#8; convert it with: openssl pkcs8 -topk8 -nocrypt",
                "ingest.certFile=" + cert,
                "ingest.keyFile=" + sec1);
    }

    @Test
    void an_expired_certificate_is_not_a_config_error_but_an_alarm_later() {
        Instant now = Instant.now();
        DevCertificates.issueClient(
                dir, "edge-01", now.minus(Duration.ofDays(9)), now.minus(Duration.ofDays(1)), cert, key);
        assertThat(ConfigLoader.load(null, List.of("ingest.certFile=" + cert, "ingest.keyFile=" + key))
                        .forwarder()
                        .credentials()
                        .clientCertificate())
                .isPresent();
    }

    private Path clientSecret(String mode) throws Exception {
        Path file = dir.resolve("client.secret");
        Files.writeString(file, "s3cret\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
        return file;
    }

    @Test
    void the_oauth2_keys_make_the_client_credentials_grant_with_basic_authentication_by_default() throws Exception {
        Path secret = clientSecret("rw-------");
        BridgeConfig c = ConfigLoader.load(
                null,
                List.of(
                        "ingest.oauth2.tokenUrl=https://idp.example/oauth2/token",
                        "ingest.oauth2.clientId=edge-01",
                        "ingest.oauth2.clientSecretFile=" + secret,
                        "ingest.oauth2.scope=ingest"));
        assertThat(c.forwarder().credentials().oauth2()).hasValueSatisfying(o -> {
            assertThat(o.clientId()).isEqualTo("edge-01");
            assertThat(o.scope()).contains("ingest");
            assertThat(o.audience()).isEmpty();
            assertThat(o.clientAuth()).isEqualTo(OAuth2Settings.ClientAuth.BASIC);
        });
        assertThat(c.forwarder().credentials().token()).isEmpty();
        assertThat(c.masked().values()).doesNotContain("s3cret");
        assertThat(ConfigWarnings.of(c)).noneMatch(w -> w.contains("oauth2"));
    }

    @Test
    void the_oauth2_keys_need_each_other_and_exclude_a_fixed_token() throws Exception {
        Path secret = clientSecret("rw-------");
        assertRefused(
                "ingest.oauth2.clientId: must be set when ingest.oauth2.tokenUrl is set",
                "ingest.oauth2.tokenUrl=https://idp.example/token",
                "ingest.oauth2.clientSecretFile=" + secret);
        assertRefused(
                "ingest.oauth2.clientSecretFile: must be set when ingest.oauth2.tokenUrl is set",
                "ingest.oauth2.tokenUrl=https://idp.example/token",
                "ingest.oauth2.clientId=edge-01");
        assertRefused(
                "ingest.oauth2.tokenUrl: must be set when ingest.oauth2.scope is set", "ingest.oauth2.scope=ingest");
        assertRefused(
                "ingest.oauth2.tokenUrl and ingest.token: both are set",
                "ingest.token=fixed",
                "ingest.oauth2.tokenUrl=https://idp.example/token",
                "ingest.oauth2.clientId=edge-01",
                "ingest.oauth2.clientSecretFile=" + secret);
        assertRefused(
                "ingest.oauth2.tokenUrl=ftp://idp: must be an http:// or https:// URL",
                "ingest.oauth2.tokenUrl=ftp://idp");
    }

    @Test
    void a_client_secret_file_missing_or_readable_by_others_is_refused_naming_it() throws Exception {
        Path secret = clientSecret("rw-r-----");
        List<String> sets = List.of(
                "ingest.oauth2.tokenUrl=https://idp.example/token",
                "ingest.oauth2.clientId=edge-01",
                "ingest.oauth2.clientSecretFile=" + secret);
        assertRefused(
                "ingest.oauth2.clientSecretFile=" + secret + ": readable by its group, refused",
                sets.toArray(String[]::new));
        assertRefused(
                "ingest.oauth2.clientSecretFile=" + dir.resolve("none") + ": no such file",
                "ingest.oauth2.tokenUrl=https://idp.example/token",
                "ingest.oauth2.clientId=edge-01",
                "ingest.oauth2.clientSecretFile=" + dir.resolve("none"));
    }

    @Test
    void a_token_endpoint_over_plain_http_to_another_host_is_warned_about() throws Exception {
        BridgeConfig c = ConfigLoader.load(
                null,
                List.of(
                        "ingest.oauth2.tokenUrl=http://idp.example/token",
                        "ingest.oauth2.clientId=edge-01",
                        "ingest.oauth2.clientSecretFile=" + clientSecret("rw-------")));
        assertThat(ConfigWarnings.of(c))
                .anyMatch(w -> w.startsWith("ingest.oauth2.tokenUrl is http://idp.example/token, plain http://"));
    }
}
