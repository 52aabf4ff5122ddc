package org.edgebridge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.edgebridge.broker.BrokerSettings;
import org.edgebridge.broker.TlsSettings;
import org.edgebridge.forward.IngestClientKind;
import org.edgebridge.intake.ExpiryRules;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
    private static final Path REFERENCE = Path.of("../broker-config/bridge.yaml");

    @TempDir
    Path dir;

    @Test
    void defaults_are_the_documented_ones() {
        BridgeConfig c = ConfigLoader.load(null, List.of());
        assertThat(c.edgeId()).isEqualTo("edge-01");
        assertThat(c.broker().listener().port()).isEqualTo(1883);
        assertThat(c.broker().login().anonymous()).isFalse();
        assertThat(c.broker().listener().tls()).isEmpty();
        assertThat(c.admin().host()).isEqualTo("127.0.0.1");
        assertThat(c.admin().port()).isEqualTo(8080);
        assertThat(c.intake().parsing().maxPayloadBytes()).isEqualTo(262_144);
        assertThat(c.forwarder().batching().maxEvents()).isEqualTo(500);
        assertThat(c.forwarder().batching().maxBytes().intBytes()).isEqualTo(1024 * 1024);
        assertThat(c.forwarder().retries().maxAttempts()).isEqualTo(50);
        assertThat(c.forwarder().retries().authRetryInterval()).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void the_reference_file_lists_exactly_the_keys_the_code_knows_with_their_defaults() throws IOException {
        Map<String, String> effective = ConfigLoader.load(REFERENCE, List.of()).effective();
        List<String> fileKeys = referenceKeys();
        assertThat(fileKeys)
                .containsExactlyInAnyOrderElementsOf(
                        ConfigKeys.ALL.stream().map(ConfigKey::name).toList());
        for (ConfigKey<?> key : ConfigKeys.ALL) {
            if (key.defaultValue() != null) {
                assertThat(effective.get(key.name())).as(key.name()).isEqualTo(key.defaultValue());
            }
        }
    }

    /** Every leaf of the YAML tree, blank ones included (they document keys without a default). */
    private static List<String> referenceKeys() throws IOException {
        List<String> keys = new ArrayList<>();
        String section = null;
        for (String line : Files.readAllLines(REFERENCE)) {
            if (line.isBlank() || line.strip().startsWith("#")) {
                continue;
            }
            String name = line.strip().split(":", 2)[0];
            if (!line.startsWith(" ")) {
                section = name;
            } else {
                keys.add(section + "." + name);
            }
        }
        return keys;
    }

    @Test
    void set_overrides_the_file_and_yaml_may_nest_or_use_dotted_keys() throws IOException {
        Path file = dir.resolve("b.yaml");
        Files.writeString(file, "mqtt:\n  port: 1999\nforwarder.maxEvents: 7\n");
        BridgeConfig c = ConfigLoader.load(file, List.of("mqtt.port=2000"));
        assertThat(c.broker().listener().port()).isEqualTo(2000);
        assertThat(c.forwarder().batching().maxEvents()).isEqualTo(7);
    }

    @Test
    void every_problem_is_reported_at_once_with_key_value_and_rule() {
        assertThatThrownBy(() -> ConfigLoader.load(
                        null,
                        List.of(
                                "mqtt.port=99999",
                                "forwarder.linger=soon",
                                "mqtt.prot=1",
                                "auth.anonymous=yes",
                                "broken")))
                .isInstanceOfSatisfying(
                        ConfigException.class,
                        e -> assertThat(e.problems())
                                .containsExactlyInAnyOrder(
                                        "--set broken: must be key=value, for example --set mqtt.port=1883",
                                        "mqtt.prot: unknown key (did you mean mqtt.port?); the keys are listed in "
                                                + "broker-config/bridge.yaml",
                                        "mqtt.port=99999: must be from 0 to 65535",
                                        "auth.anonymous=yes: must be true or false",
                                        "forwarder.linger=soon: must be a duration such as 500ms, 30s, 5m, 2h or 7d"));
    }

    @Test
    void expiry_rules_are_read_in_order_and_a_bad_one_names_the_key_and_the_rule() throws Exception {
        ExpiryRules rules = ConfigLoader.load(null, List.of("intake.expiryByType=gate/open=10m, batch/#=2h,+/x=30s"))
                .intake()
                .parsing()
                .expiry();
        Instant t = Instant.parse("2026-12-02T00:00:00Z");
        assertThat(rules.expiresAt("gate/open", t)).contains(t.plusSeconds(600));
        assertThat(rules.expiresAt("batch", t)).as("# matches no level too").contains(t.plusSeconds(7200));
        assertThat(rules.expiresAt("batch/release/now", t)).contains(t.plusSeconds(7200));
        assertThat(rules.expiresAt("door/x", t)).contains(t.plusSeconds(30));
        assertThat(rules.expiresAt("gate/close", t)).isEmpty();
        assertThat(ConfigLoader.load(null, List.of())
                        .intake()
                        .parsing()
                        .expiry()
                        .rules())
                .as("no expiry by default")
                .isEmpty();
        assertThatThrownBy(() -> ConfigLoader.load(null, List.of("intake.expiryByType=gate/open")))
                .hasMessageContaining("intake.expiryByType=gate/open: must be none or rules pattern=duration");
        assertThatThrownBy(() -> ConfigLoader.load(null, List.of("intake.expiryByType=gate/#/x=1m")))
                .hasMessageContaining("intake.expiryByType=gate/#/x=1m: pattern 'gate/#/x' must be type levels");
        assertThatThrownBy(() -> ConfigLoader.load(null, List.of("intake.expiryByType=gate=soon")))
                .hasMessageContaining("must be a duration");
    }

    @Test
    void keys_that_depend_on_each_other_are_checked_together() {
        assertThatThrownBy(() -> ConfigLoader.load(
                        null,
                        List.of(
                                "tls.clientAuth=required",
                                "mqtt.port=0",
                                "intake.maxPayloadBytes=1MiB",
                                "tls.keyFile=/nonexistent/key.pem")))
                .isInstanceOfSatisfying(
                        ConfigException.class,
                        e -> assertThat(e.problems())
                                .anySatisfy(p -> assertThat(p)
                                        .startsWith("mqtt.maxPacketBytes=524288: must be at least "
                                                + "intake.maxPayloadBytes"))
                                .anySatisfy(p ->
                                        assertThat(p).startsWith("tls.certFile: must be set when tls.keyFile is set"))
                                .anySatisfy(p ->
                                        assertThat(p).startsWith("tls.keyFile=/nonexistent/key.pem: no readable file"))
                                .anySatisfy(p -> assertThat(p).startsWith("tls.clientAuth=required: needs tls.caFile"))
                                .anySatisfy(p -> assertThat(p).startsWith("mqtt.port=0: with no TLS listener")));
    }

    @Test
    void a_file_that_is_not_yaml_or_missing_is_one_clear_problem() throws IOException {
        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, "mqtt: [unclosed\n");
        assertThatThrownBy(() -> ConfigLoader.load(bad, List.of())).hasMessageContaining("not valid YAML");
        assertThatThrownBy(() -> ConfigLoader.load(dir.resolve("none.yaml"), List.of()))
                .hasMessageContaining("no such file");
    }

    @Test
    void a_removed_key_is_no_live_key() {
        assertThat(RemovedKeys.names())
                .as("a live key of the same name would be read as removed and ignored")
                .allSatisfy(name -> assertThat(ConfigKeys.find(name)).isNull());
    }

    @Test
    void one_connection_may_hold_at_most_half_of_the_intake_queue() {
        assertThatThrownBy(() -> ConfigLoader.load(
                        null, List.of("intake.maxQueuedBytes=1MiB", "mqtt.maxBytesAwaitingCommit=1MiB")))
                .hasMessageContaining(
                        "mqtt.maxBytesAwaitingCommit=1MiB: must be at most half of intake.maxQueuedBytes");
        assertThat(ConfigLoader.load(null, List.of("intake.maxQueuedBytes=1MiB", "mqtt.maxBytesAwaitingCommit=512KiB"))
                        .broker()
                        .publishes()
                        .maxBytesAwaitingCommit()
                        .bytes())
                .isEqualTo(512 * 1024);
    }

    @Test
    void the_blocking_client_needs_an_https_central() {
        assertThatThrownBy(() -> ConfigLoader.load(
                        null, List.of("ingest.client=blocking", "ingest.url=http://127.0.0.1:9/ingest")))
                .hasMessageContaining("ingest.client=blocking: needs an https:// ingest.url");
        assertThat(ConfigLoader.load(null, List.of("ingest.client=blocking", "ingest.url=https://127.0.0.1:9/ingest"))
                        .forwarder()
                        .central()
                        .client())
                .isEqualTo(IngestClientKind.BLOCKING);
    }

    @Test
    void a_misspelled_key_gets_a_suggestion() {
        assertThatThrownBy(() -> ConfigLoader.load(null, List.of("MQTT.PORT=1")))
                .hasMessageContaining("did you mean mqtt.port?");
    }

    @Test
    void environment_variables_set_keys_between_the_file_and_the_overrides() throws IOException {
        Path file = dir.resolve("bridge.yaml");
        Files.writeString(file, "edge:\n  id: from-file\nmqtt:\n  port: 1884\nadmin:\n  port: 8181\n");
        Map<String, String> env = Map.of(
                "EDGE_BRIDGE_MQTT_PORT",
                "1885",
                "EDGE_BRIDGE_ADMIN_PORT",
                "8282",
                "EDGE_BRIDGE_FORWARDER_BACKOFFMAX",
                "2m",
                "PATH",
                "/usr/bin");
        BridgeConfig c = ConfigLoader.load(file, List.of("admin.port=8383"), Map.of(), env);
        assertThat(c.edgeId()).isEqualTo("from-file");
        assertThat(c.broker().listener().port())
                .as("the environment wins over the file")
                .isEqualTo(1885);
        assertThat(c.admin().port()).as("--set wins over the environment").isEqualTo(8383);
        assertThat(c.forwarder().retries().backoff().max()).isEqualTo(Duration.ofMinutes(2));
    }

    @Test
    void an_environment_variable_that_names_no_key_is_a_problem_and_every_key_has_its_own_variable() {
        assertThatThrownBy(() -> ConfigLoader.load(null, List.of(), Map.of(), Map.of("EDGE_BRIDGE_MQTT_PROT", "1")))
                .isInstanceOfSatisfying(
                        ConfigException.class,
                        e -> assertThat(e.problems())
                                .containsExactly(
                                        "environment EDGE_BRIDGE_MQTT_PROT: names no key (EDGE_BRIDGE_KEY with the key's dots as '_', "
                                                + "for example EDGE_BRIDGE_MQTT_PORT)"));
        assertThat(ConfigKeys.ALL.stream()
                        .map(k -> ConfigLoader.envName(k.name()))
                        .distinct()
                        .count())
                .isEqualTo(ConfigKeys.ALL.size());
    }

    @Test
    void a_key_given_twice_in_a_file_is_a_problem_not_last_one_wins() throws IOException {
        Path dup = dir.resolve("dup.yaml");
        Files.writeString(dup, "mqtt:\n  port: 1884\n  port: 1885\n");
        assertThatThrownBy(() -> ConfigLoader.load(dup, List.of()))
                .hasMessageContaining("'port' is given twice in the same map; keep one")
                .hasMessageContaining("line 3");
        Path both = dir.resolve("both.yaml");
        Files.writeString(both, "mqtt.port: 1884\nmqtt:\n  port: 1885\n");
        assertThatThrownBy(() -> ConfigLoader.load(both, List.of()))
                .isInstanceOfSatisfying(
                        ConfigException.class,
                        e -> assertThat(e.problems())
                                .containsExactly("mqtt.port: set twice in " + both
                                        + " (as 'mqtt.port' and as 'mqtt > port'); keep one"));
    }

    @Test
    void a_removed_key_still_in_a_site_file_starts_with_one_warning_and_an_unknown_key_still_fails()
            throws IOException {
        Path file = dir.resolve("old.yaml");
        Files.writeString(
                file,
                "mqtt:\n  port: 1884\n  transport: epoll\noutbox:\n  leanHistory: true\nintake:\n  writerThread: false\n");
        BridgeConfig c = ConfigLoader.load(file, List.of());
        assertThat(c.broker().listener().port()).isEqualTo(1884);
        assertThat(c.effective()).doesNotContainKeys("mqtt.transport", "outbox.leanHistory", "intake.writerThread");
        assertThat(ConfigWarnings.of(c))
                .as("what the start logs at WARN and check-config prints")
                .contains(
                        "mqtt.transport is no longer read (dropped: it measured no gain); delete the line",
                        "outbox.leanHistory is no longer read (dropped: it measured no gain); delete the line",
                        "intake.writerThread is no longer read (dropped: it measured no gain; the intake always has its "
                                + "writer thread); delete the line");
        assertThat(ConfigWarnings.of(
                        ConfigLoader.load(null, List.of(), Map.of(), Map.of("EDGE_BRIDGE_MQTT_TRANSPORT", "auto"))))
                .as("set in the environment")
                .contains("mqtt.transport is no longer read (dropped: it measured no gain); delete the line");
        assertThat(ConfigWarnings.of(ConfigLoader.load(null, List.of()))).noneMatch(w -> w.contains("no longer read"));
        Files.writeString(file, "mqtt:\n  transport: nio\n  transports: nio\n");
        assertThatThrownBy(() -> ConfigLoader.load(file, List.of()))
                .isInstanceOfSatisfying(ConfigException.class, e -> {
                    assertThat(e.problems()).hasSize(1);
                    assertThat(e.problems().get(0)).startsWith("mqtt.transports: unknown key");
                });
    }

    @Test
    void an_unknown_key_a_few_letters_off_gets_did_you_mean() {
        assertThatThrownBy(() -> ConfigLoader.load(null, List.of("mqtt.prot=1884")))
                .hasMessageContaining("mqtt.prot: unknown key (did you mean mqtt.port?)");
        assertThatThrownBy(() -> ConfigLoader.load(null, List.of("forwarder.backofMax=1s")))
                .hasMessageContaining("(did you mean forwarder.backoffMax?)");
        assertThatThrownBy(() -> ConfigLoader.load(null, List.of("completely.different=1")))
                .isInstanceOfSatisfying(
                        ConfigException.class,
                        e -> assertThat(e.problems().get(0)).doesNotContain("did you mean"));
    }

    @Test
    void every_listener_port_takes_any_for_a_free_one_and_zero_keeps_its_meaning() throws IOException {
        BridgeConfig c = ConfigLoader.load(null, List.of("mqtt.port=any", "admin.port=any"));
        assertThat(c.broker().listener().port()).isEqualTo(BrokerSettings.ANY_PORT);
        assertThat(c.admin().port())
                .as("the admin listener's free port is 0, as it always was")
                .isZero();
        assertThat(c.effective()).containsEntry("mqtt.port", "any").containsEntry("admin.port", "any");
        assertThat(ConfigLoader.load(null, List.of("admin.port=0")).admin().port())
                .isZero();

        Path cert = Files.writeString(dir.resolve("cert.pem"), "not read here");
        Path key = Files.writeString(dir.resolve("key.pem"), "not read here");
        BridgeConfig tls = ConfigLoader.load(
                null, List.of("mqtt.port=any", "tls.port=any", "tls.certFile=" + cert, "tls.keyFile=" + key));
        assertThat(tls.broker().listener().tls().orElseThrow().port())
                .as("two 'any' ports are not the same port")
                .isEqualTo(BrokerSettings.ANY_PORT);

        assertThatThrownBy(() -> ConfigLoader.load(null, List.of("mqtt.port=free", "tls.port=0", "admin.port=-1")))
                .isInstanceOfSatisfying(
                        ConfigException.class,
                        e -> assertThat(e.problems())
                                .containsExactlyInAnyOrder(
                                        "mqtt.port=free: must be a whole number from 0 to 65535, or any (any free port)",
                                        "tls.port=0: must be from 1 to 65535",
                                        "admin.port=-1: must be from 0 to 65535"));
    }

    @Test
    void each_key_gives_a_value_of_its_own_type() {
        Duration linger = ForwarderKeys.FORWARDER_LINGER.value("20ms");
        TlsSettings.ClientAuth auth = BrokerKeys.TLS_CLIENT_AUTH.value("required");
        Optional<Path> unset = BrokerKeys.TLS_CERT_FILE.value(null);
        assertThat(linger).isEqualTo(Duration.ofMillis(20));
        assertThat(auth).isEqualTo(TlsSettings.ClientAuth.REQUIRED);
        assertThat(unset).isEmpty();
        assertThat(ConfigKeys.OUTBOX_MIN_FREE_DISK.value("1GiB")).isEqualTo(1024L * 1024 * 1024);
        assertThatThrownBy(() -> ConfigLoader.load(null, List.of("tls.clientAuth=maybe")))
                .isInstanceOfSatisfying(
                        ConfigException.class,
                        e -> assertThat(e.problems())
                                .containsExactly("tls.clientAuth=maybe: must be one of none, optional, required"));
    }

    @Test
    void a_zero_duration_prints_as_seconds() {
        assertThat(ValueParsers.format(Duration.ZERO)).isEqualTo("0s");
        assertThat(ValueParsers.format(Duration.ofDays(7))).isEqualTo("7d");
    }

    @Test
    void check_config_warns_when_no_device_could_connect_and_no_admin_action_would_work() {
        assertThat(ConfigWarnings.of(ConfigLoader.load(null, List.of())))
                .hasSize(2)
                .anySatisfy(w -> assertThat(w)
                        .startsWith("auth.anonymous=false, no auth.passwordFile and no client certificates"))
                .anySatisfy(w -> assertThat(w).startsWith("admin.token is not set"));
        assertThat(ConfigWarnings.of(
                        ConfigLoader.load(null, List.of("auth.anonymous=true", "admin.token=0123456789abcdef"))))
                .isEmpty();
    }

    @Test
    void a_token_that_yaml_would_turn_into_a_number_or_boolean_is_refused_with_a_line_that_says_to_quote_it()
            throws IOException {
        Path file = dir.resolve("numbers.yaml");
        Files.writeString(file, "admin:\n  token: 0777\ningest:\n  token: 1e3\nmqtt:\n  host: yes\n");
        assertThatThrownBy(() -> ConfigLoader.load(file, List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("admin.token: YAML reads this unquoted value as the number 511")
                .hasMessageContaining("put the value in quotes: admin.token: \"...\"")
                .hasMessageContaining("ingest.token: YAML reads this unquoted value as the number 1000.0")
                .hasMessageContaining("mqtt.host: YAML reads this unquoted value as the boolean true");
        Files.writeString(file, "admin:\n  token: \"0777\"\ningest:\n  token: '12:30'\n");
        BridgeConfig quoted = ConfigLoader.load(file, List.of());
        assertThat(quoted.admin().token()).contains("0777");
        assertThat(quoted.forwarder().credentials().token()).contains("12:30");
    }

    @Test
    void check_config_warns_about_a_short_admin_token_and_an_ingest_token_over_plain_http_to_another_host() {
        assertThat(ConfigWarnings.of(ConfigLoader.load(
                        null,
                        List.of(
                                "auth.anonymous=true",
                                "admin.token=short-token",
                                "ingest.url=http://central.example:8090/ingest",
                                "ingest.token=" + "t".repeat(32)))))
                .hasSize(2)
                .anySatisfy(w ->
                        assertThat(w).startsWith("admin.token has 11 characters: a token this short can be guessed"))
                .anySatisfy(w -> assertThat(w)
                        .startsWith("ingest.token is sent to http://central.example:8090/ingest over plain http://"));
        assertThat(ConfigWarnings.of(ConfigLoader.load(
                        null,
                        List.of(
                                "auth.anonymous=true",
                                "admin.token=0123456789abcdef",
                                "ingest.url=https://central.example/ingest",
                                "ingest.token=x"))))
                .isEmpty();
        assertThat(ConfigWarnings.of(ConfigLoader.load(
                        null,
                        List.of(
                                "auth.anonymous=true",
                                "admin.token=0123456789abcdef",
                                "ingest.url=http://127.0.0.1:8090/ingest",
                                "ingest.token=x"))))
                .isEmpty();
    }

    @Test
    void an_admin_host_that_is_not_loopback_needs_an_admin_token_and_then_guards_reads_with_it() {
        assertThatThrownBy(() -> ConfigLoader.load(null, List.of("admin.host=0.0.0.0")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("admin.host=0.0.0.0 is not a loopback address: the status, the outbox (with "
                        + "payloads), "
                        + "the devices and the metrics then need admin.token");
        assertThat(ConfigLoader.load(null, List.of("admin.host=0.0.0.0", "admin.token=0123456789abcdef"))
                        .admin()
                        .readsNeedToken())
                .isTrue();
        assertThat(ConfigLoader.load(null, List.of("admin.host=192.168.7.2", "admin.token=0123456789abcdef"))
                        .admin()
                        .readsNeedToken())
                .isTrue();
        assertThat(ConfigLoader.load(null, List.of()).admin().readsNeedToken()).isFalse();
        assertThat(ConfigLoader.load(null, List.of("admin.host=::1")).admin().readsNeedToken())
                .isFalse();
        assertThat(ConfigLoader.load(null, List.of("admin.host=localhost"))
                        .admin()
                        .readsNeedToken())
                .isFalse();
        assertThatThrownBy(() -> ConfigLoader.load(null, List.of("admin.tokenForReads=always")))
                .hasMessageContaining("admin.host=127.0.0.1 with admin.tokenForReads=always");
    }

    @Test
    void ingest_proxy_takes_an_http_host_port_url_and_a_value_that_is_not_one_is_a_config_error() {
        assertThat(ConfigLoader.load(null, List.of("ingest.proxy=http://proxy.site.example:3128"))
                        .forwarder()
                        .central()
                        .proxy())
                .contains(URI.create("http://proxy.site.example:3128"));
        assertThat(ConfigLoader.load(null, List.of()).forwarder().central().proxy())
                .isEmpty();
        for (String bad : List.of(
                "proxy.site.example:3128",
                "http://proxy.site.example",
                "https://proxy:3128",
                "http://user:pw@proxy:3128",
                "http://proxy:3128/path",
                "not a url")) {
            assertThatThrownBy(() -> ConfigLoader.load(null, List.of("ingest.proxy=" + bad)))
                    .as(bad)
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("ingest.proxy=" + bad + ": must be an http://host:port URL");
        }
    }

    /**
     * Neighbouring numbers of one type in a settings record (a swap would compile): each key, set to a value of its
     * own, must land in the component that the docs give it.
     */
    @Test
    void each_number_lands_in_its_own_component() {
        Placements where = new Placements();
        where.put("auth.queue", 300L, c -> (long) c.broker().login().queue().total());
        where.put("auth.queuePerAddress", 9L, c ->
                (long) c.broker().login().queue().perAddress());
        where.put("auth.failedLoginsPerClientId", 11L, c ->
                (long) c.broker().login().throttle().failuresPerClientId());
        where.put("auth.failedLoginsPerAddress", 101L, c ->
                (long) c.broker().login().throttle().failuresPerAddress());
        where.put("mqtt.maxConnections", 4001L, c ->
                (long) c.broker().limits().connections().max());
        where.put("mqtt.maxConnectionsPerAddress", 1001L, c ->
                (long) c.broker().limits().connections().maxPerAddress());
        where.put("mqtt.maxHeldPackets", 102L, c ->
                (long) c.broker().limits().connections().maxHeldPackets());
        where.put("mqtt.maxConnectionsBeforeLogin", 1002L, c ->
                (long) c.broker().limits().beforeLogin().max());
        where.put("mqtt.maxConnectionsBeforeLoginPerNetwork", 700L, c ->
                (long) c.broker().limits().beforeLogin().maxPerNetwork());
        where.put("ingest.maxReceiptResultBytes", 5000L, c ->
                (long) c.forwarder().requests().receiptCaps().maxResultBytes());
        where.put("ingest.maxReceiptMessageBytes", 2000L, c ->
                (long) c.forwarder().requests().receiptCaps().maxMessageBytes());
        where.put("ingest.maxReceiptCodeBytes", 100L, c ->
                (long) c.forwarder().requests().receiptCaps().maxCodeBytes());
        where.put("intake.maxPayloadBytes", 60000L, c ->
                (long) c.intake().parsing().maxPayloadBytes());
        where.put("intake.maxBatch", 200L, c -> (long) c.intake().queue().maxBatch());
        where.put("intake.queueCapacity", 20001L, c -> (long) c.intake().queue().capacity());
        where.put("outbox.maxPending", 900000L, c -> c.intake().room().maxPending());
        where.put("intake.maxJsonDepth", 31L, c ->
                (long) c.intake().parsing().jsonLimits().maxDepth());
        where.put("intake.maxJsonStringLength", 100000L, c ->
                (long) c.intake().parsing().jsonLimits().maxStringLength());
        where.put("intake.maxJsonNumberLength", 99L, c ->
                (long) c.intake().parsing().jsonLimits().maxNumberLength());
        where.put(
                "outbox.maxPendingPerDevice",
                9999L,
                c -> c.intake().room().deviceShare().maxCommands());
        where.put("forwarder.maxEvents", 499L, c ->
                (long) c.forwarder().batching().maxEvents());
        where.put("forwarder.eventsPerSecond", 4999L, c ->
                (long) c.forwarder().batching().eventsPerSecond());
        where.put("forwarder.maxConcurrentRequests", 3L, c ->
                (long) c.forwarder().requests().maxConcurrent());
        where.put("forwarder.requestsPerSecond", 399L, c ->
                (long) c.forwarder().requests().perSecond());
        where.add("mqtt.maxPacketBytes=" + (64 * 1024)); // at least intake.maxPayloadBytes + 1024
        BridgeConfig c = ConfigLoader.load(null, where.sets);
        where.readers.forEach((key, read) -> assertThat(read.apply(c)).as(key).isEqualTo(where.values.get(key)));
    }

    /** Keys set to values of their own, and where each must land. */
    private static final class Placements {
        final List<String> sets = new ArrayList<>();
        final Map<String, Long> values = new LinkedHashMap<>();
        final Map<String, Function<BridgeConfig, Long>> readers = new LinkedHashMap<>();

        void put(String key, long value, Function<BridgeConfig, Long> reader) {
            if (values.containsValue(value)) {
                throw new IllegalArgumentException(key + "=" + value + ": another key has that value");
            }
            sets.add(key + "=" + value);
            values.put(key, value);
            readers.put(key, reader);
        }

        void add(String set) {
            sets.add(set);
        }
    }
}
