package org.edgebridge.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;

/** Every configuration key the bridge knows, with its default and rule. The reference file documents the same list. */
public final class ConfigKeys {
    private static final Pattern EDGE_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,63}");
    private static final Pattern TOPIC_PREFIX = Pattern.compile("[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*");
    private static final Duration MAX_DURATION = Duration.ofDays(3650);

    public static final List<ConfigKey> ALL = List.of(
        key("edge.id", "edge-01", "this bridge's id, sent to central as edgeId",
            v -> matching(v, EDGE_ID, "must be 1-64 chars of [A-Za-z0-9._:-], starting alphanumeric")),
        key("data.dir", "data", "where the outbox, the broker store and generated material live", ConfigKeys::path),

        key("mqtt.host", "0.0.0.0", "bind address of the MQTT listeners (plain and TLS)", ConfigKeys::nonBlank),
        key("mqtt.port", "1883", "plain MQTT listener port; 0 switches it off", v -> ValueParsers.integer(v, 0, 65535)),
        key("mqtt.topicPrefix", "devices", "first topic level(s) of device topics: {prefix}/{clientId}/commands/#",
            v -> matching(v, TOPIC_PREFIX, "must be topic levels of [A-Za-z0-9_.-] separated by /, without wildcards")),
        key("mqtt.maxPacketBytes", "524288", "largest MQTT packet accepted; larger ones close the connection",
            v -> (int) ValueParsers.size(v, 1024, 268_435_455)),
        key("mqtt.sessionQueueSize", "8192", "capacity of each broker session-loop command queue",
            v -> ValueParsers.integer(v, 1024, 1_048_576)),
        key("mqtt.sessionExpiry", "7d", "how long the broker keeps the session of a device that stays away (at most 24d: Moquette 0.17 overflows past it)",
            v -> ValueParsers.duration(v, Duration.ofMinutes(1), Duration.ofDays(24))),

        key("mqtt.takeoverAlarmPerMinute", "10", "session takeovers of one client id per minute that raise a takeover-storm alarm",
            v -> ValueParsers.integer(v, 1, 1_000_000)),
        key("mqtt.throttleTakeovers", "false", "true refuses CONNECTs of a client id in a takeover storm (CONNACK 3) until it calms down",
            ValueParsers::bool),

        key("tls.port", "8883", "TLS MQTT listener port, on when tls.certFile is set", v -> ValueParsers.integer(v, 1, 65535)),
        key("tls.certFile", null, "server certificate chain, PEM", ConfigKeys::path),
        key("tls.keyFile", null, "server private key, PEM (PKCS#8)", ConfigKeys::path),
        key("tls.caFile", null, "CA certificates that sign device certificates, PEM", ConfigKeys::path),
        key("tls.clientAuth", "none", "client certificates: none, optional or required",
            v -> oneOf(v, "none", "optional", "required")),

        key("auth.anonymous", "false", "true lets devices connect without credentials", ValueParsers::bool),
        key("auth.passwordFile", null, "registered devices: clientId:username:hash per line; a registered client id always "
            + "needs its credentials (or its client certificate), even with auth.anonymous=true", ConfigKeys::path),
        key("auth.threads", "1", "threads that check passwords (PBKDF2, tens of ms each), apart from the network threads",
            v -> ValueParsers.integer(v, 1, 64)),
        key("auth.queue", "256", "CONNECTs that may wait for a password check; past it they are refused with CONNACK 3",
            v -> ValueParsers.integer(v, 1, 100_000)),
        key("auth.failedLoginsPerClientId", "10", "failed logins of one client id per minute after which its CONNECTs "
            + "are refused with CONNACK 3 for the rest of that minute", v -> ValueParsers.integer(v, 1, 1_000_000)),
        key("auth.failedLoginsPerAddress", "100", "failed logins from one source address per minute after which its "
            + "CONNECTs are refused with CONNACK 3 for the rest of that minute", v -> ValueParsers.integer(v, 1, 1_000_000)),

        key("admin.host", "127.0.0.1", "bind address of the admin HTTP API and status page", ConfigKeys::nonBlank),
        key("admin.port", "8080", "admin HTTP port; 0 picks a free one", v -> ValueParsers.integer(v, 0, 65535)),
        key("admin.token", null, "bearer token every admin POST needs", ConfigKeys::nonBlank),

        key("ingest.url", "http://127.0.0.1:8090/ingest", "central's ingest endpoint", ValueParsers::httpUrl),
        key("ingest.token", null, "bearer token sent to central", ConfigKeys::nonBlank),
        key("ingest.caFile", null, "CA certificates (PEM) to trust for an https:// ingest.url, instead of the JVM's trust store",
            ConfigKeys::path),
        key("ingest.timeout", "30s", "time limit of one request to central",
            v -> ValueParsers.duration(v, Duration.ofMillis(100), Duration.ofMinutes(10))),

        key("intake.maxPayloadBytes", "262144", "largest command payload; larger ones are rejected payload_too_large",
            v -> (int) ValueParsers.size(v, 64, 16 * 1024 * 1024)),
        key("intake.maxBatch", "256", "most commands stored in one outbox transaction (group commit)",
            v -> ValueParsers.integer(v, 1, 10_000)),
        key("intake.queueCapacity", "20000", "commands waiting for the outbox writer; past it intake answers retry_later",
            v -> ValueParsers.integer(v, 100, 10_000_000)),
        key("intake.maxQueuedBytes", "32MiB", "payload bytes waiting for the outbox writer; past it intake answers "
            + "retry_later / intake_busy (bounds the intake's memory whatever the payload sizes)",
            v -> ValueParsers.size(v, 256 * 1024, 4L * 1024 * 1024 * 1024)),

        key("shutdown.timeout", "20s", "SIGTERM: how long the graceful stop may take before in-flight work is abandoned "
            + "(abandoned claims return to pending at the next start)",
            v -> ValueParsers.duration(v, Duration.ofSeconds(1), Duration.ofMinutes(10))),

        key("outbox.maxPending", "1000000", "commands not final yet that the outbox holds; past it intake answers retry_later / outbox_full",
            v -> ValueParsers.integer(v, 1, 1_000_000_000)),
        key("outbox.minFreeDisk", "256MiB", "free disk below which intake answers retry_later / outbox_full",
            v -> ValueParsers.size(v, 0, Long.MAX_VALUE / 2)),
        key("outbox.fullRetryAfter", "30s", "retryAfterMs told to devices when the outbox is full",
            v -> ValueParsers.duration(v, Duration.ofSeconds(1), Duration.ofHours(1))),
        key("outbox.retention", "7d", "how long final commands are kept: the window in which a resend gets its old receipt",
            v -> ValueParsers.duration(v, Duration.ofMinutes(1), MAX_DURATION)),
        key("outbox.purgeBatch", "500", "final commands deleted per transaction by the retention purge",
            v -> ValueParsers.integer(v, 10, 100_000)),
        key("outbox.purgeInterval", "1m", "time between retention purges",
            v -> ValueParsers.duration(v, Duration.ofSeconds(1), Duration.ofDays(1))),

        key("forwarder.maxEvents", "500", "most events in one request to central", v -> ValueParsers.integer(v, 1, 10_000)),
        key("forwarder.maxBytes", "1MiB", "most payload bytes in one request to central",
            v -> (int) ValueParsers.size(v, 1024, 64 * 1024 * 1024)),
        key("forwarder.linger", "20ms", "how long a non-full batch waits for more events",
            v -> ValueParsers.duration(v, Duration.ZERO, Duration.ofSeconds(10))),
        key("forwarder.requestsPerSecond", "20", "requests to central per second at most", v -> ValueParsers.integer(v, 1, 100_000)),
        key("forwarder.eventsPerSecond", "5000", "events to central per second at most", v -> ValueParsers.integer(v, 1, 1_000_000)),
        key("forwarder.maxConcurrentRequests", "1", "requests to central in flight at once (a Resilience4j bulkhead); "
            + "events of one device are never in two at once", v -> ValueParsers.integer(v, 1, 32)),
        key("forwarder.maxAttempts", "50", "central retry_later answers before an event is parked",
            v -> ValueParsers.integer(v, 1, 1_000_000)),
        key("forwarder.backoffInitial", "500ms", "first wait after a failed request",
            v -> ValueParsers.duration(v, Duration.ofMillis(1), Duration.ofMinutes(10))),
        key("forwarder.backoffMax", "60s", "longest wait between failed requests",
            v -> ValueParsers.duration(v, Duration.ofMillis(1), Duration.ofHours(24))),
        key("forwarder.authRetryInterval", "60s", "while paused by a 401/403/4xx, how often to try again",
            v -> ValueParsers.duration(v, Duration.ofSeconds(1), Duration.ofHours(24))),
        key("forwarder.breakerFailureRate", "50", "percent of failed calls (of the last 20) that opens the circuit breaker",
            v -> ValueParsers.integer(v, 1, 100)),
        key("forwarder.breakerOpenFor", "30s", "how long the circuit breaker stays open before one probe",
            v -> ValueParsers.duration(v, Duration.ofMillis(100), MAX_DURATION)),
        key("forwarder.maxRetryAfter", "1h", "longest wait central can ask for (Retry-After, retryAfterMs); longer ones are "
            + "clamped to it", v -> ValueParsers.duration(v, Duration.ofSeconds(1), Duration.ofDays(1))),
        key("forwarder.maxServerErrors", "10", "times one event, isolated by bisection, alone makes central answer 5xx "
            + "before it is parked (code ingest_server_error); other events go on meanwhile", v -> ValueParsers.integer(v, 1, 1_000_000)));

    private static final Map<String, ConfigKey> BY_NAME = byName();

    private ConfigKeys() {}

    /** The reference as a Markdown table: what docs/configuration.md holds (a test keeps them equal). */
    public static String markdownReference() {
        StringBuilder out = new StringBuilder();
        out.append("# Configuration reference\n\n");
        out.append("Generated from the code by `java -jar bridge/target/edge-bridge.jar config-reference`; a test fails when\n");
        out.append("this file and the code disagree. The commented example is `broker-config/bridge.yaml`. Every key can be\n");
        out.append("set in the YAML file (nested or dotted), by an environment variable (`EDGE_BRIDGE_` and the key with its\n");
        out.append("dots as `_`, in capitals: `EDGE_BRIDGE_MQTT_PORT`, `EDGE_BRIDGE_TLS_CERTFILE`), which wins over the file,\n");
        out.append("or with `--set key=value`, which wins over both. Durations: `500ms`, `30s`,\n");
        out.append("`5m`, `2h`, `7d`. Sizes: bytes, or `256KiB`, `1MiB`, `1GiB`. A bad value stops start-up with exit code 2\n");
        out.append("and one line per problem naming the key, the value and the rule.\n\n");
        out.append("| key | default | meaning |\n| --- | --- | --- |\n");
        for (ConfigKey k : ALL) {
            out.append("| `").append(k.name()).append("` | ")
                    .append(k.defaultValue() == null ? "(unset)" : "`" + k.defaultValue() + "`").append(" | ")
                    .append(k.doc().replace("|", "\\|")).append(" |\n");
        }
        return out.toString();
    }

    public static ConfigKey find(String name) {
        return BY_NAME.get(name);
    }

    private static Map<String, ConfigKey> byName() {
        Map<String, ConfigKey> map = new LinkedHashMap<>();
        ALL.forEach(k -> map.put(k.name(), k));
        return Map.copyOf(map);
    }

    private static ConfigKey key(String name, String defaultValue, String doc, Function<String, Object> parser) {
        return new ConfigKey(name, defaultValue, doc, parser);
    }

    private static Object nonBlank(String v) {
        if (v.isBlank()) {
            throw new IllegalArgumentException("must not be blank");
        }
        return v.trim();
    }

    private static Object path(String v) {
        if (v.isBlank()) {
            throw new IllegalArgumentException("must be a file system path");
        }
        try {
            return Path.of(v.trim());
        } catch (java.nio.file.InvalidPathException e) {
            throw new IllegalArgumentException("must be a valid file system path");
        }
    }

    private static Object matching(String v, Pattern pattern, String rule) {
        if (!pattern.matcher(v.trim()).matches()) {
            throw new IllegalArgumentException(rule);
        }
        return v.trim();
    }

    private static Object oneOf(String v, String... allowed) {
        for (String a : allowed) {
            if (a.equals(v.trim())) {
                return a;
            }
        }
        throw new IllegalArgumentException("must be one of " + String.join(", ", allowed));
    }
}
