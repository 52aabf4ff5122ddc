package org.edgebridge.config;

import static org.edgebridge.config.BrokerKeys.*;
import static org.edgebridge.config.ConfigKeys.*;
import static org.edgebridge.config.ForwarderKeys.*;
import static org.edgebridge.config.IngestKeys.*;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.edgebridge.broker.BrokerSettings;
import org.edgebridge.broker.TlsSettings;
import org.edgebridge.budget.BudgetSettings;
import org.edgebridge.forecast.ForecastSettings;
import org.edgebridge.forward.ForwarderSettings;
import org.edgebridge.forward.ReceiptCaps;
import org.edgebridge.intake.IntakeSettings;
import org.edgebridge.intake.JsonLimits;
import org.edgebridge.outbox.DeviceShare;
import org.edgebridge.outbox.RetentionSettings;
import org.edgebridge.unit.DataSize;
import org.jspecify.annotations.Nullable;

/**
 * Reads a YAML file (nested maps, or dotted keys), {@code EDGE_BRIDGE_*} environment variables and
 * {@code --set key=value} overrides into a validated {@link BridgeConfig}, in that order (a later source wins).
 * Every problem is collected and reported at once, one line each.
 */
public final class ConfigLoader {
    /** A key given twice in one map is an error, not "the last one wins". */
    private static final ObjectMapper YAML =
            new ObjectMapper(new YAMLFactory()).enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    /** Environment variables that set a key: {@code EDGE_BRIDGE_} + the key, dots as '_', in capitals. */
    public static final String ENV_PREFIX = "EDGE_BRIDGE_";

    private final Map<String, String> raw = new LinkedHashMap<>();
    private final List<String> problems = new ArrayList<>();
    /** Keys the file set, with how it spelled them: a key set twice (dotted and nested) is a problem. */
    private final Map<String, String> fromFile = new LinkedHashMap<>();

    private @Nullable Path file;

    private ConfigLoader() {}

    /**
     * @param file the YAML file, or null for the documented defaults
     * @param sets {@code key=value} overrides, applied after the file in order
     * @param presets values that replace the defaults but yield to the file and the overrides (used by demo)
     */
    public static BridgeConfig load(@Nullable Path file, List<String> sets, Map<String, String> presets) {
        return load(file, sets, presets, System.getenv());
    }

    /** As {@link #load(Path, List, Map)}, with {@code env} in place of the process's environment. */
    static BridgeConfig load(
            @Nullable Path file, List<String> sets, Map<String, String> presets, Map<String, String> env) {
        ConfigLoader loader = new ConfigLoader();
        loader.raw.putAll(presets);
        if (file != null) {
            loader.readFile(file);
        }
        loader.readEnvironment(env);
        for (String set : sets) {
            loader.readSet(set);
        }
        return loader.build();
    }

    public static BridgeConfig load(@Nullable Path file, List<String> sets) {
        return load(file, sets, Map.of());
    }

    private void readFile(Path file) {
        this.file = file;
        if (!Files.isRegularFile(file)) {
            throw new ConfigException("--config " + file + ": no such file");
        }
        JsonNode root;
        try {
            root = YAML.readTree(file.toFile());
        } catch (JacksonException e) {
            String where =
                    e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr();
            Matcher dup = Pattern.compile("Duplicate field '([^']*)'").matcher(String.valueOf(e.getOriginalMessage()));
            if (dup.find()) {
                throw new ConfigException("--config " + file + where + ": '" + dup.group(1)
                        + "' is given twice in the same "
                        + "map; keep one (the file would otherwise mean whichever came last)");
            }
            throw new ConfigException("--config " + file + ": not valid YAML" + where + ": " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new ConfigException("--config " + file + ": cannot be read: " + e.getMessage());
        }
        if (root == null || root.isMissingNode() || root.isNull()) {
            return;
        }
        if (!root.isObject()) {
            throw new ConfigException("--config " + file + ": must be a map of keys, such as 'mqtt:\\n  port: 1883'");
        }
        flatten("", root);
    }

    private void flatten(String prefix, JsonNode node) {
        Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> field = fields.next();
            String name = prefix.isEmpty() ? field.getKey() : prefix + "." + field.getKey();
            JsonNode value = field.getValue();
            if (value.isObject()) {
                flatten(name, value);
            } else if (value.isArray()) {
                problems.add(name + ": a list is not allowed here; give one value");
            } else {
                String spelled = prefix.isEmpty() ? field.getKey() : prefix + " > " + field.getKey();
                String before = fromFile.put(name, spelled);
                if (before != null) {
                    problems.add(name + ": set twice in " + file + " (as '" + before + "' and as '" + spelled
                            + "'); keep one");
                }
                ConfigKey<?> key = ConfigKeys.find(name);
                if (key != null && key.textual() && (value.isNumber() || value.isBoolean())) {
                    problems.add(name + ": YAML reads this unquoted value as the "
                            + (value.isNumber() ? "number " : "boolean ")
                            + value.asText() + ", not as the text written (YAML turns 0777 into 511, 1e3 into 1000.0, "
                            + "yes into true); "
                            + "put the value in quotes: " + name + ": \"...\"");
                } else if (value.isNull() || value.asText().isEmpty()) {
                    raw.remove(name);
                } else {
                    raw.put(name, value.asText());
                }
            }
        }
    }

    /** {@code EDGE_BRIDGE_MQTT_PORT=1884} sets mqtt.port, {@code EDGE_BRIDGE_TLS_CERTFILE} tls.certFile. */
    private void readEnvironment(Map<String, String> env) {
        new TreeMap<>(env).forEach((variable, value) -> {
            if (!variable.startsWith(ENV_PREFIX)) {
                return;
            }
            String name = ConfigKeys.ALL.stream()
                    .map(ConfigKey::name)
                    .filter(k -> envName(k).equals(variable))
                    .findFirst()
                    .orElse(RemovedKeys.ofVariable(variable));
            if (name == null) {
                problems.add("environment " + variable + ": names no key (" + ENV_PREFIX
                        + "KEY with the key's dots as '_', for example " + envName("mqtt.port") + ")");
            } else if (value.isEmpty()) {
                raw.remove(name);
            } else {
                raw.put(name, value);
            }
        });
    }

    /** The environment variable that sets {@code key}: {@code mqtt.port} -> {@code EDGE_BRIDGE_MQTT_PORT}. */
    public static String envName(String key) {
        return ENV_PREFIX + key.replace('.', '_').toUpperCase(Locale.ROOT);
    }

    private void readSet(String set) {
        int eq = set.indexOf('=');
        if (eq <= 0) {
            problems.add("--set " + set + ": must be key=value, for example --set mqtt.port=1883");
            return;
        }
        String name = set.substring(0, eq).trim();
        String value = set.substring(eq + 1);
        if (value.isEmpty()) {
            raw.remove(name);
        } else {
            raw.put(name, value);
        }
    }

    private BridgeConfig build() {
        List<String> removed = new ArrayList<>();
        for (String name : raw.keySet()) {
            if (RemovedKeys.contains(name)) {
                removed.add(name);
            } else if (ConfigKeys.find(name) == null) {
                problems.add(name + ": unknown key" + KeySuggestion.forName(name)
                        + "; the keys are listed in broker-config/bridge.yaml");
            }
        }
        Map<String, String> effective = new LinkedHashMap<>();
        for (ConfigKey<?> key : ConfigKeys.ALL) {
            String text = raw.getOrDefault(key.name(), key.defaultValue());
            if (text == null) {
                continue;
            }
            effective.put(key.name(), text);
            try {
                key.value(text);
            } catch (IllegalArgumentException e) {
                problems.add(key.name() + "=" + text + ": " + e.getMessage());
            }
        }
        Values values = new Values(effective);
        if (problems.isEmpty()) {
            CrossKeyChecks.check(values, problems);
            IngestCredentials.check(values, problems);
        }
        boolean valid = problems.isEmpty();
        Optional<String> ingestToken = valid
                ? TokenFiles.token(
                        INGEST_TOKEN,
                        values.get(INGEST_TOKEN),
                        INGEST_TOKEN_FILE,
                        values.get(INGEST_TOKEN_FILE),
                        problems)
                : Optional.<String>empty();
        Optional<String> adminToken = valid
                ? TokenFiles.token(
                        ADMIN_TOKEN, values.get(ADMIN_TOKEN), ADMIN_TOKEN_FILE, values.get(ADMIN_TOKEN_FILE), problems)
                : Optional.<String>empty();
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        return assemble(values, ingestToken, adminToken, removed);
    }

    private static BridgeConfig assemble(
            Values v, Optional<String> ingestToken, Optional<String> adminToken, List<String> removed) {
        Path dataDir = v.get(DATA_DIR);
        Optional<TlsSettings> tls = v.get(TLS_CERT_FILE)
                .map(cert -> new TlsSettings(
                        v.get(TLS_PORT),
                        cert,
                        v.get(TLS_KEY_FILE).orElseThrow(),
                        v.get(TLS_CA_FILE),
                        v.get(TLS_CLIENT_AUTH)));
        BrokerSettings broker = new BrokerSettings(
                new BrokerSettings.Listener(v.get(MQTT_HOST), v.get(MQTT_PORT), tls, v.get(MQTT_IO_THREADS)),
                new BrokerSettings.Publishes(
                        v.get(MQTT_TOPIC_PREFIX),
                        DataSize.ofBytes(v.get(MQTT_MAX_PACKET_BYTES)),
                        maxWaitingPublishes(v.get(INTAKE_MAX_QUEUED_BYTES), v.get(MQTT_MAX_PACKET_BYTES)),
                        v.get(MQTT_PUBACK_AFTER_COMMIT),
                        v.get(MQTT_MAX_COMMANDS_AWAITING_COMMIT),
                        DataSize.ofBytes(v.get(MQTT_MAX_BYTES_AWAITING_COMMIT))),
                new BrokerSettings.Sessions(
                        dataDir.resolve("broker"),
                        v.get(MQTT_SESSION_QUEUE_SIZE),
                        v.get(MQTT_SESSION_EXPIRY),
                        v.get(MQTT_TAKEOVER_ALARM_PER_MINUTE),
                        v.get(MQTT_THROTTLE_TAKEOVERS)),
                new BrokerSettings.LoginSettings(
                        v.get(AUTH_ANONYMOUS),
                        v.get(AUTH_PASSWORD_FILE),
                        v.get(AUTH_THREADS),
                        new BrokerSettings.PasswordQueue(
                                v.get(AUTH_QUEUE), dataDir.resolve("recent-logins"), v.get(AUTH_QUEUE_PER_ADDRESS)),
                        new BrokerSettings.LoginThrottle(
                                v.get(AUTH_FAILED_LOGINS_PER_CLIENT_ID), v.get(AUTH_FAILED_LOGINS_PER_ADDRESS)),
                        new BrokerSettings.CertificateLogins(
                                dataDir.resolve("certificate-devices"),
                                v.get(AUTH_MAX_CERTIFICATE_DEVICES),
                                v.get(AUTH_CERTIFICATE_CLIENT_IDS))),
                new BrokerSettings.Limits(
                        new BrokerSettings.Connections(
                                v.get(MQTT_MAX_CONNECTIONS),
                                v.get(MQTT_CONNECT_TIMEOUT),
                                v.get(MQTT_MAX_CONNECTIONS_PER_ADDRESS),
                                DataSize.ofBytes(v.get(MQTT_MAX_CONNECT_BYTES)),
                                v.get(MQTT_MAX_HELD_PACKETS)),
                        new BrokerSettings.BeforeLogin(
                                v.get(MQTT_MAX_CONNECTIONS_BEFORE_LOGIN),
                                v.get(MQTT_MAX_CONNECTIONS_BEFORE_LOGIN_PER_NETWORK)),
                        new BrokerSettings.QueuedReceipts(
                                v.get(MQTT_MAX_QUEUED_RECEIPTS),
                                DataSize.ofBytes(v.get(MQTT_MAX_QUEUED_RECEIPT_BYTES)),
                                v.get(MQTT_MAX_QUEUED_RECEIPTS_TOTAL),
                                DataSize.ofBytes(v.get(MQTT_MAX_QUEUED_RECEIPT_BYTES_TOTAL))),
                        v.get(MQTT_MAX_KNOWN_DEVICES),
                        DataSize.ofBytes(v.get(MQTT_MAX_TOPIC_BYTES))));
        IntakeSettings intake = new IntakeSettings(
                new IntakeSettings.Parsing(
                        v.get(INTAKE_MAX_PAYLOAD_BYTES),
                        new JsonLimits(
                                v.get(INTAKE_MAX_JSON_DEPTH),
                                v.get(INTAKE_MAX_JSON_STRING_LENGTH),
                                v.get(INTAKE_MAX_JSON_NUMBER_LENGTH)),
                        v.get(INTAKE_EXPIRY_BY_TYPE),
                        v.get(INTAKE_MAX_EXPIRES_IN)),
                new IntakeSettings.Queue(
                        v.get(INTAKE_MAX_BATCH), v.get(INTAKE_QUEUE_CAPACITY), v.get(INTAKE_MAX_QUEUED_BYTES)),
                new IntakeSettings.Room(
                        v.get(OUTBOX_MAX_PENDING),
                        v.get(OUTBOX_MIN_FREE_DISK),
                        v.get(OUTBOX_FULL_RETRY_AFTER),
                        new DeviceShare(
                                v.get(OUTBOX_MAX_PENDING_PER_DEVICE), v.get(OUTBOX_MAX_PENDING_BYTES_PER_DEVICE))));
        RetentionSettings retention = new RetentionSettings(
                v.get(OUTBOX_RETENTION),
                v.get(OUTBOX_PURGE_BATCH),
                v.get(OUTBOX_PURGE_INTERVAL),
                v.get(OUTBOX_DEVICE_RETENTION));
        ForwarderSettings forwarder = new ForwarderSettings(
                new ForwarderSettings.Central(
                        v.get(EDGE_ID),
                        v.get(INGEST_URL),
                        v.get(INGEST_PROXY),
                        v.get(INGEST_COMPRESSION),
                        v.get(INGEST_CLIENT)),
                new ForwarderSettings.Credentials(
                        ingestToken,
                        v.get(INGEST_CA_FILE),
                        IngestCredentials.clientCertificate(v),
                        IngestCredentials.oauth2(v)),
                new ForwarderSettings.Batching(
                        v.get(FORWARDER_MAX_EVENTS),
                        DataSize.ofBytes(v.get(FORWARDER_MAX_BYTES)),
                        v.get(FORWARDER_LINGER),
                        v.get(FORWARDER_EVENTS_PER_SECOND)),
                new ForwarderSettings.Requests(
                        v.get(FORWARDER_MAX_CONCURRENT_REQUESTS),
                        v.get(INGEST_TIMEOUT),
                        v.get(FORWARDER_REQUESTS_PER_SECOND),
                        DataSize.ofBytes(v.get(INGEST_MAX_REPLY_BYTES)),
                        new ReceiptCaps(
                                v.get(INGEST_MAX_RECEIPT_RESULT_BYTES),
                                v.get(INGEST_MAX_RECEIPT_MESSAGE_BYTES),
                                v.get(INGEST_MAX_RECEIPT_CODE_BYTES))),
                new ForwarderSettings.Retries(
                        v.get(FORWARDER_MAX_ATTEMPTS),
                        new ForwarderSettings.Backoff(v.get(FORWARDER_BACKOFF_INITIAL), v.get(FORWARDER_BACKOFF_MAX)),
                        v.get(FORWARDER_MAX_RETRY_AFTER),
                        v.get(FORWARDER_MAX_SERVER_ERRORS),
                        v.get(FORWARDER_AUTH_RETRY_INTERVAL)),
                new ForwarderSettings.Breaker(
                        v.get(FORWARDER_BREAKER_FAILURE_RATE), v.get(FORWARDER_BREAKER_OPEN_FOR)));
        AdminSettings admin = new AdminSettings(
                v.get(ADMIN_HOST),
                v.get(ADMIN_PORT),
                adminToken,
                AdminSettings.readsNeedToken(v.get(ADMIN_HOST), v.get(ADMIN_TOKEN_FOR_READS)));
        return new BridgeConfig(
                v.get(EDGE_ID),
                v.get(EDGE_BEHIND_BALANCER),
                dataDir,
                broker,
                intake,
                retention,
                forwarder,
                admin,
                v.get(SHUTDOWN_TIMEOUT),
                Map.copyOf(v.texts()),
                new ForecastSettings(dataDir, v.get(OUTBOX_MIN_FREE_DISK), v.get(StorageKeys.STORAGE_RATED_TBW)),
                new BudgetSettings(dataDir, v.get(StorageKeys.INGEST_DATA_BUDGET)),
                List.copyOf(removed));
    }

    /**
     * The effective text of every key that has one. {@link #get} turns it into the key's type with the key's own
     * parser; every text was parsed once in {@link #build}, so here it cannot fail.
     */
    record Values(Map<String, String> texts) {
        <T> T get(ConfigKey<T> key) {
            // every key has a text here (its default or a set one) or is an optional key, whose unset value is empty
            return Objects.requireNonNull(key.value(texts.get(key.name())));
        }

        @Nullable
        String text(ConfigKey<?> key) {
            return texts.get(key.name());
        }
    }

    /**
     * PUBLISHes that may wait in front of the intake (Moquette's interceptor queue): as many of the largest packet
     * as fit in intake.maxQueuedBytes, at least 16, so that this wait is bounded in bytes by the same key.
     */
    static int maxWaitingPublishes(long maxQueuedBytes, int maxPacketBytes) {
        return (int) Math.max(16, Math.min(100_000, maxQueuedBytes / Math.max(1, maxPacketBytes)));
    }
}
