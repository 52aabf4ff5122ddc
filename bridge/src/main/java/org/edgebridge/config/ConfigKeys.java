package org.edgebridge.config;

import static org.edgebridge.config.BrokerKeys.*;
import static org.edgebridge.config.ConfigKey.MAX_DURATION;
import static org.edgebridge.config.ConfigKey.boolKey;
import static org.edgebridge.config.ConfigKey.durationKey;
import static org.edgebridge.config.ConfigKey.enumKey;
import static org.edgebridge.config.ConfigKey.intKey;
import static org.edgebridge.config.ConfigKey.intSizeKey;
import static org.edgebridge.config.ConfigKey.matchingKey;
import static org.edgebridge.config.ConfigKey.optionalPathKey;
import static org.edgebridge.config.ConfigKey.optionalTextKey;
import static org.edgebridge.config.ConfigKey.pathKey;
import static org.edgebridge.config.ConfigKey.portKey;
import static org.edgebridge.config.ConfigKey.sizeKey;
import static org.edgebridge.config.ConfigKey.textKey;
import static org.edgebridge.config.ForwarderKeys.*;
import static org.edgebridge.config.IngestKeys.*;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.edgebridge.intake.ExpiryRules;
import org.jspecify.annotations.Nullable;

/**
 * Every configuration key the bridge knows, each declared once with its type, default, allowed values and meaning.
 * {@link ConfigLoader} reads them, {@link ConfigReference} documents them (docs/configuration.md), and a test
 * keeps broker-config/bridge.yaml listing the same keys with the same defaults.
 */
public final class ConfigKeys {
    private static final long KiB = 1024;
    private static final long MiB = 1024 * KiB;

    public static final ConfigKey<String> EDGE_ID = matchingKey(
                    "edge.id",
                    "edge-01",
                    Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,63}"),
                    "1-64 chars of [A-Za-z0-9._:-], starting alphanumeric",
                    "this bridge's id, sent to central as edgeId; each box of a site has its own")
            .see("docs/protocol.md#22-sequence-and-order");
    public static final ConfigKey<Boolean> EDGE_BEHIND_BALANCER = boolKey(
                    "edge.behindBalancer",
                    false,
                    "true when devices reach this box through a load balancer, with other boxes")
            .see("docs/scale-out.md#each-box");
    public static final ConfigKey<Path> DATA_DIR = pathKey(
                    "data.dir",
                    "data",
                    "directory of the outbox, the broker's session store and the other files the bridge keeps")
            .see("docs/install.md#running-it");
    public static final ConfigKey<String> ADMIN_HOST = textKey(
                    "admin.host", "127.0.0.1", "bind address of the admin HTTP API and status page")
            .see("docs/protocol.md#3-admin-http");
    /** 0 and any both pick a free port: 0 as the admin listener always allowed, any as every listener spells it. */
    public static final ConfigKey<Integer> ADMIN_PORT = portKey(
                    "admin.port", 8080, 0, 0, "admin HTTP port; any (or 0) picks a free one")
            .see("docs/protocol.md#11-listeners");

    public static final ConfigKey<Optional<String>> ADMIN_TOKEN = optionalTextKey(
                    "admin.token",
                    "bearer token of the admin API: every POST needs it, and the GETs when admin.tokenForReads says so")
            .see("docs/protocol.md#3-admin-http");
    public static final ConfigKey<AdminSettings.TokenForReads> ADMIN_TOKEN_FOR_READS = enumKey(
                    "admin.tokenForReads",
                    AdminSettings.TokenForReads.AUTO,
                    AdminSettings.TokenForReads.class,
                    "when the admin GETs need admin.token too: auto (off loopback) or always")
            .see("docs/protocol.md#3-admin-http");
    public static final ConfigKey<Optional<Path>> ADMIN_TOKEN_FILE = optionalPathKey(
                    "admin.tokenFile",
                    "file holding admin.token, so that the token is in neither the YAML nor the environment")
            .see("docs/install.md#4-configuration");
    public static final ConfigKey<Integer> INTAKE_MAX_PAYLOAD_BYTES = intSizeKey(
                    "intake.maxPayloadBytes",
                    "262144",
                    64,
                    16 * 1024 * 1024,
                    "largest command payload; larger ones are rejected payload_too_large")
            .see("docs/protocol.md#14-the-command-payload");
    public static final ConfigKey<Integer> INTAKE_MAX_BATCH = intKey(
                    "intake.maxBatch", 256, 1, 10_000, "most commands stored in one outbox transaction (group commit)")
            .see("docs/install.md#storage-that-keeps-what-it-acknowledges");
    public static final ConfigKey<Integer> INTAKE_QUEUE_CAPACITY = intKey(
                    "intake.queueCapacity",
                    20000,
                    100,
                    10_000_000,
                    "commands waiting for the outbox writer; past it intake answers retry_later")
            .see("docs/forwarding.md#memory-bounded-in-bytes-not-in-rows");
    public static final ConfigKey<Long> INTAKE_MAX_QUEUED_BYTES = sizeKey(
                    "intake.maxQueuedBytes",
                    "32MiB",
                    256 * KiB,
                    4096 * MiB,
                    "payload bytes waiting for the outbox writer; past it intake answers retry_later")
            .see("docs/forwarding.md#memory-bounded-in-bytes-not-in-rows");
    public static final ConfigKey<Integer> INTAKE_MAX_JSON_DEPTH = intKey(
                    "intake.maxJsonDepth",
                    32,
                    1,
                    1000,
                    "deepest nesting of objects and arrays in a command payload (its own object is 1)")
            .see("docs/protocol.md#14-the-command-payload");
    public static final ConfigKey<Integer> INTAKE_MAX_JSON_STRING_LENGTH = intKey(
                    "intake.maxJsonStringLength",
                    262144,
                    16,
                    16 * 1024 * 1024,
                    "most characters in one JSON string (name or value) of a command payload")
            .see("docs/protocol.md#14-the-command-payload");
    public static final ConfigKey<Integer> INTAKE_MAX_JSON_NUMBER_LENGTH = intKey(
                    "intake.maxJsonNumberLength",
                    100,
                    1,
                    1000,
                    "most characters in one JSON number of a command payload")
            .see("docs/protocol.md#14-the-command-payload");
    public static final ConfigKey<ExpiryRules> INTAKE_EXPIRY_BY_TYPE = new ConfigKey<>(
                    "intake.expiryByType",
                    "none",
                    "none, or type=duration,…",
                    "how long commands of a type stay worth applying: type=duration rules, first match wins",
                    ValueParsers::expiryRules,
                    null)
            .see("docs/protocol.md#14-the-command-payload");
    public static final ConfigKey<Duration> INTAKE_MAX_EXPIRES_IN = durationKey(
                    "intake.maxExpiresIn",
                    "366d",
                    Duration.ofMinutes(1),
                    Duration.ofDays(36_525),
                    "latest expiresAt a command may carry, counted from its arrival")
            .see("docs/protocol.md#14-the-command-payload");
    public static final ConfigKey<Integer> STORAGE_EXPECTED_INTAKE_RATE = intKey(
                    "storage.expectedIntakeRate",
                    1000,
                    1,
                    1_000_000,
                    "commands per second the site must be able to store, which the disk is checked against at start")
            .see("docs/install.md#storage-that-keeps-what-it-acknowledges");
    public static final ConfigKey<Duration> SHUTDOWN_TIMEOUT = durationKey(
                    "shutdown.timeout",
                    "20s",
                    Duration.ofSeconds(1),
                    Duration.ofMinutes(10),
                    "how long a graceful stop (SIGTERM) may take before in-flight work is abandoned")
            .see("docs/install.md#running-it");
    public static final ConfigKey<Integer> OUTBOX_MAX_PENDING = intKey(
                    "outbox.maxPending",
                    1000000,
                    1,
                    1_000_000_000,
                    "commands not final yet that the outbox holds; past it intake answers retry_later")
            .see("docs/design.md#back-pressure-retention-dedup-window");
    public static final ConfigKey<Integer> OUTBOX_MAX_PENDING_PER_DEVICE = intKey(
                    "outbox.maxPendingPerDevice",
                    10000,
                    1,
                    1_000_000_000,
                    "commands not final yet that one device may have in the outbox")
            .see("docs/design.md#back-pressure-retention-dedup-window");
    public static final ConfigKey<Long> OUTBOX_MAX_PENDING_BYTES_PER_DEVICE = sizeKey(
                    "outbox.maxPendingBytesPerDevice",
                    "64MiB",
                    MiB,
                    ValueParsers.NO_LIMIT,
                    "payload bytes of the commands not final yet of one device")
            .see("docs/design.md#back-pressure-retention-dedup-window");
    public static final ConfigKey<Long> OUTBOX_MIN_FREE_DISK = sizeKey(
                    "outbox.minFreeDisk",
                    "256MiB",
                    0,
                    ValueParsers.NO_LIMIT,
                    "free disk below which intake answers retry_later / outbox_full")
            .see("docs/design.md#back-pressure-retention-dedup-window");
    public static final ConfigKey<Duration> OUTBOX_FULL_RETRY_AFTER = durationKey(
                    "outbox.fullRetryAfter",
                    "30s",
                    Duration.ofSeconds(1),
                    Duration.ofHours(1),
                    "retryAfterMs told to devices when the outbox is full")
            .see("docs/design.md#back-pressure-retention-dedup-window");
    public static final ConfigKey<Duration> OUTBOX_RETENTION = durationKey(
                    "outbox.retention",
                    "7d",
                    Duration.ofMinutes(1),
                    MAX_DURATION,
                    "how long final commands are kept: the window in which a resend gets its old receipt")
            .see("docs/design.md#back-pressure-retention-dedup-window");
    public static final ConfigKey<Integer> OUTBOX_PURGE_BATCH = intKey(
                    "outbox.purgeBatch",
                    500,
                    10,
                    100_000,
                    "final commands deleted per transaction by the retention purge")
            .see("docs/design.md#back-pressure-retention-dedup-window");
    public static final ConfigKey<Duration> OUTBOX_PURGE_INTERVAL = durationKey(
                    "outbox.purgeInterval",
                    "1m",
                    Duration.ofSeconds(1),
                    Duration.ofDays(1),
                    "time between retention purges")
            .see("docs/design.md#back-pressure-retention-dedup-window");
    public static final ConfigKey<Duration> OUTBOX_DEVICE_RETENTION = durationKey(
                    "outbox.deviceRetention",
                    "365d",
                    Duration.ofDays(1),
                    MAX_DURATION,
                    "how long a device the outbox holds no command of is remembered, with its sequence")
            .see("docs/protocol.md#22-sequence-and-order");

    /** Every key, in the order of the reference. */
    public static final List<ConfigKey<?>> ALL = List.of(
            EDGE_ID,
            EDGE_BEHIND_BALANCER,
            DATA_DIR,
            MQTT_HOST,
            MQTT_PORT,
            MQTT_IO_THREADS,
            MQTT_TOPIC_PREFIX,
            MQTT_MAX_PACKET_BYTES,
            MQTT_SESSION_QUEUE_SIZE,
            MQTT_SESSION_EXPIRY,
            MQTT_MAX_CONNECTIONS,
            MQTT_MAX_CONNECTIONS_PER_ADDRESS,
            MQTT_MAX_CONNECTIONS_BEFORE_LOGIN,
            MQTT_MAX_CONNECTIONS_BEFORE_LOGIN_PER_NETWORK,
            MQTT_MAX_HELD_PACKETS,
            MQTT_PUBACK_AFTER_COMMIT,
            MQTT_MAX_COMMANDS_AWAITING_COMMIT,
            MQTT_MAX_BYTES_AWAITING_COMMIT,
            MQTT_MAX_CONNECT_BYTES,
            MQTT_CONNECT_TIMEOUT,
            MQTT_MAX_TOPIC_BYTES,
            MQTT_MAX_QUEUED_RECEIPTS,
            MQTT_MAX_QUEUED_RECEIPT_BYTES,
            MQTT_MAX_QUEUED_RECEIPTS_TOTAL,
            MQTT_MAX_QUEUED_RECEIPT_BYTES_TOTAL,
            MQTT_MAX_KNOWN_DEVICES,
            MQTT_TAKEOVER_ALARM_PER_MINUTE,
            MQTT_THROTTLE_TAKEOVERS,
            TLS_PORT,
            TLS_CERT_FILE,
            TLS_KEY_FILE,
            TLS_CA_FILE,
            TLS_CLIENT_AUTH,
            AUTH_ANONYMOUS,
            AUTH_PASSWORD_FILE,
            AUTH_THREADS,
            AUTH_QUEUE,
            AUTH_QUEUE_PER_ADDRESS,
            AUTH_FAILED_LOGINS_PER_CLIENT_ID,
            AUTH_FAILED_LOGINS_PER_ADDRESS,
            AUTH_CERTIFICATE_CLIENT_IDS,
            AUTH_MAX_CERTIFICATE_DEVICES,
            ADMIN_HOST,
            ADMIN_PORT,
            ADMIN_TOKEN,
            ADMIN_TOKEN_FILE,
            ADMIN_TOKEN_FOR_READS,
            INGEST_URL,
            INGEST_TOKEN,
            INGEST_TOKEN_FILE,
            INGEST_CA_FILE,
            INGEST_CERT_FILE,
            INGEST_KEY_FILE,
            INGEST_CERT_EXPIRY_WARNING,
            INGEST_OAUTH2_TOKEN_URL,
            INGEST_OAUTH2_CLIENT_ID,
            INGEST_OAUTH2_CLIENT_SECRET_FILE,
            INGEST_OAUTH2_SCOPE,
            INGEST_OAUTH2_AUDIENCE,
            INGEST_OAUTH2_CLIENT_AUTH,
            INGEST_PROXY,
            INGEST_COMPRESSION,
            INGEST_CLIENT,
            INGEST_TIMEOUT,
            INGEST_MAX_REPLY_BYTES,
            INGEST_MAX_RECEIPT_RESULT_BYTES,
            INGEST_MAX_RECEIPT_MESSAGE_BYTES,
            INGEST_MAX_RECEIPT_CODE_BYTES,
            INTAKE_MAX_PAYLOAD_BYTES,
            INTAKE_MAX_BATCH,
            INTAKE_QUEUE_CAPACITY,
            INTAKE_MAX_QUEUED_BYTES,
            INTAKE_MAX_JSON_DEPTH,
            INTAKE_MAX_JSON_STRING_LENGTH,
            INTAKE_MAX_JSON_NUMBER_LENGTH,
            INTAKE_EXPIRY_BY_TYPE,
            INTAKE_MAX_EXPIRES_IN,
            STORAGE_EXPECTED_INTAKE_RATE,
            SHUTDOWN_TIMEOUT,
            OUTBOX_MAX_PENDING,
            OUTBOX_MAX_PENDING_PER_DEVICE,
            OUTBOX_MAX_PENDING_BYTES_PER_DEVICE,
            OUTBOX_MIN_FREE_DISK,
            OUTBOX_FULL_RETRY_AFTER,
            OUTBOX_RETENTION,
            OUTBOX_PURGE_BATCH,
            OUTBOX_PURGE_INTERVAL,
            OUTBOX_DEVICE_RETENTION,
            FORWARDER_MAX_EVENTS,
            FORWARDER_MAX_BYTES,
            FORWARDER_LINGER,
            FORWARDER_REQUESTS_PER_SECOND,
            FORWARDER_EVENTS_PER_SECOND,
            FORWARDER_MAX_CONCURRENT_REQUESTS,
            FORWARDER_MAX_ATTEMPTS,
            FORWARDER_BACKOFF_INITIAL,
            FORWARDER_BACKOFF_MAX,
            FORWARDER_AUTH_RETRY_INTERVAL,
            FORWARDER_BREAKER_FAILURE_RATE,
            FORWARDER_BREAKER_OPEN_FOR,
            FORWARDER_MAX_RETRY_AFTER,
            FORWARDER_MAX_SERVER_ERRORS,
            StorageKeys.INGEST_DATA_BUDGET,
            StorageKeys.STORAGE_RATED_TBW);

    private static final Map<String, ConfigKey<?>> BY_NAME = byName();

    private ConfigKeys() {}

    public static @Nullable ConfigKey<?> find(String name) {
        return BY_NAME.get(name);
    }

    private static Map<String, ConfigKey<?>> byName() {
        Map<String, ConfigKey<?>> map = new LinkedHashMap<>();
        ALL.forEach(k -> map.put(k.name(), k));
        return Map.copyOf(map);
    }
}
