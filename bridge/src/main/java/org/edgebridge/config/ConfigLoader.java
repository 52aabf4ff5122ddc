package org.edgebridge.config;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.edgebridge.admin.AdminSettings;
import org.edgebridge.broker.BrokerSettings;
import org.edgebridge.broker.TlsSettings;
import org.edgebridge.forward.ForwarderSettings;
import org.edgebridge.intake.IntakeSettings;
import org.edgebridge.outbox.RetentionSettings;

/**
 * Reads a YAML file (nested maps, or dotted keys), {@code EDGE_BRIDGE_*} environment variables and
 * {@code --set key=value} overrides into a validated {@link BridgeConfig}, in that order (a later source wins).
 * Every problem is collected and reported at once, one line each.
 */
public final class ConfigLoader {
    /** A key given twice in one map is an error, not "the last one wins". */
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(com.fasterxml.jackson.core.JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    /** Environment variables that set a key: {@code EDGE_BRIDGE_} + the key, dots as '_', in capitals. */
    public static final String ENV_PREFIX = "EDGE_BRIDGE_";

    private final Map<String, String> raw = new LinkedHashMap<>();
    private final List<String> problems = new ArrayList<>();
    /** Keys the file set, with how it spelled them: a key set twice (dotted and nested) is a problem. */
    private final Map<String, String> fromFile = new LinkedHashMap<>();
    private Path file;

    private ConfigLoader() {}

    /**
     * @param file the YAML file, or null for the documented defaults
     * @param sets {@code key=value} overrides, applied after the file in order
     * @param presets values that replace the defaults but yield to the file and the overrides (used by demo)
     */
    public static BridgeConfig load(Path file, List<String> sets, Map<String, String> presets) {
        return load(file, sets, presets, System.getenv());
    }

    /** As {@link #load(Path, List, Map)}, with {@code env} in place of the process's environment. */
    static BridgeConfig load(Path file, List<String> sets, Map<String, String> presets, Map<String, String> env) {
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

    public static BridgeConfig load(Path file, List<String> sets) {
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
            String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr();
            java.util.regex.Matcher dup = java.util.regex.Pattern.compile("Duplicate field '([^']*)'")
                    .matcher(String.valueOf(e.getOriginalMessage()));
            if (dup.find()) {
                throw new ConfigException("--config " + file + where + ": '" + dup.group(1) + "' is given twice in the same "
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
                if (value.isNull() || value.asText().isEmpty()) {
                    raw.remove(name);
                } else {
                    raw.put(name, value.asText());
                }
            }
        }
    }

    /** {@code EDGE_BRIDGE_MQTT_PORT=1884} sets mqtt.port, {@code EDGE_BRIDGE_TLS_CERTFILE} tls.certFile. */
    private void readEnvironment(Map<String, String> env) {
        new java.util.TreeMap<>(env).forEach((variable, value) -> {
            if (!variable.startsWith(ENV_PREFIX)) {
                return;
            }
            ConfigKey key = ConfigKeys.ALL.stream().filter(k -> envName(k.name()).equals(variable)).findFirst().orElse(null);
            if (key == null) {
                problems.add("environment " + variable + ": names no key (" + ENV_PREFIX
                        + "KEY with the key's dots as '_', for example " + envName("mqtt.port") + ")");
            } else if (value.isEmpty()) {
                raw.remove(key.name());
            } else {
                raw.put(key.name(), value);
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
        Map<String, Object> values = new LinkedHashMap<>();
        for (String name : raw.keySet()) {
            if (ConfigKeys.find(name) == null) {
                problems.add(name + ": unknown key" + suggestion(name) + "; the keys are listed in broker-config/bridge.yaml");
            }
        }
        Map<String, String> effective = new LinkedHashMap<>();
        for (ConfigKey key : ConfigKeys.ALL) {
            String text = raw.getOrDefault(key.name(), key.defaultValue());
            if (text == null) {
                continue;
            }
            effective.put(key.name(), text);
            try {
                values.put(key.name(), key.parser().apply(text));
            } catch (IllegalArgumentException e) {
                problems.add(key.name() + "=" + text + ": " + e.getMessage());
            }
        }
        if (problems.isEmpty()) {
            checkTogether(values);
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        return assemble(new Values(values), effective);
    }

    private void checkTogether(Map<String, Object> v) {
        int maxPacket = (Integer) v.get("mqtt.maxPacketBytes");
        int maxPayload = (Integer) v.get("intake.maxPayloadBytes");
        if (maxPacket < maxPayload + 1024) {
            problems.add("mqtt.maxPacketBytes=" + maxPacket + ": must be at least intake.maxPayloadBytes + 1024 ("
                    + (maxPayload + 1024) + ") so that an oversized payload can still be answered payload_too_large");
        }
        boolean tlsOn = v.containsKey("tls.certFile");
        if (tlsOn && !v.containsKey("tls.keyFile")) {
            problems.add("tls.keyFile: must be set when tls.certFile is set (the PEM private key of the server certificate)");
        }
        if (!tlsOn && v.containsKey("tls.keyFile")) {
            problems.add("tls.certFile: must be set when tls.keyFile is set (the PEM certificate chain)");
        }
        for (String fileKey : List.of("tls.certFile", "tls.keyFile", "tls.caFile", "auth.passwordFile", "ingest.caFile")) {
            Path p = (Path) v.get(fileKey);
            if (p != null && !Files.isReadable(p)) {
                problems.add(fileKey + "=" + p + ": no readable file there");
            }
        }
        if (!"none".equals(v.get("tls.clientAuth")) && !v.containsKey("tls.caFile")) {
            problems.add("tls.clientAuth=" + v.get("tls.clientAuth") + ": needs tls.caFile, the CA that signs device certificates");
        }
        int port = (Integer) v.get("mqtt.port");
        if (port == 0 && !tlsOn) {
            problems.add("mqtt.port=0: with no TLS listener (tls.certFile unset) no device could connect; set tls.certFile or a port");
        }
        if (tlsOn && port != 0 && port == (Integer) v.get("tls.port")) {
            problems.add("tls.port=" + port + ": must differ from mqtt.port");
        }
        Duration initial = (Duration) v.get("forwarder.backoffInitial");
        Duration max = (Duration) v.get("forwarder.backoffMax");
        if (max.compareTo(initial) < 0) {
            problems.add("forwarder.backoffMax=" + ValueParsers.format(max) + ": must be at least forwarder.backoffInitial ("
                    + ValueParsers.format(initial) + ")");
        }
    }

    private static BridgeConfig assemble(Values v, Map<String, String> effective) {
        Path dataDir = v.get("data.dir");
        Optional<TlsSettings> tls = v.optional("tls.certFile").map(cert -> new TlsSettings(
                v.get("tls.port"),
                (Path) cert,
                v.get("tls.keyFile"),
                v.optional("tls.caFile"),
                TlsSettings.ClientAuth.valueOf(((String) v.get("tls.clientAuth")).toUpperCase(Locale.ROOT))));
        BrokerSettings broker = new BrokerSettings(
                v.get("mqtt.host"), v.get("mqtt.port"), v.get("mqtt.topicPrefix"), v.get("mqtt.maxPacketBytes"),
                v.get("mqtt.sessionQueueSize"), v.get("mqtt.sessionExpiry"), dataDir.resolve("broker"), tls,
                v.get("auth.anonymous"), v.optional("auth.passwordFile"), v.get("mqtt.takeoverAlarmPerMinute"),
                v.get("mqtt.throttleTakeovers"),
                new BrokerSettings.LoginSettings(v.get("auth.threads"), v.get("auth.queue"),
                        v.get("auth.failedLoginsPerClientId"), v.get("auth.failedLoginsPerAddress")),
                maxWaitingPublishes(v.get("intake.maxQueuedBytes"), v.get("mqtt.maxPacketBytes")));
        IntakeSettings intake = new IntakeSettings(
                v.get("intake.maxPayloadBytes"), v.get("intake.maxBatch"), v.get("intake.queueCapacity"),
                ((Integer) v.get("outbox.maxPending")).longValue(), v.get("outbox.minFreeDisk"), v.get("outbox.fullRetryAfter"),
                v.get("intake.maxQueuedBytes"));
        RetentionSettings retention = new RetentionSettings(
                v.get("outbox.retention"), v.get("outbox.purgeBatch"), v.get("outbox.purgeInterval"));
        ForwarderSettings forwarder = new ForwarderSettings(
                v.get("edge.id"), (URI) v.get("ingest.url"), v.optional("ingest.token"), v.optional("ingest.caFile"),
                v.get("ingest.timeout"),
                v.get("forwarder.maxEvents"), v.get("forwarder.maxBytes"), v.get("forwarder.linger"),
                v.get("forwarder.requestsPerSecond"), v.get("forwarder.eventsPerSecond"),
                v.get("forwarder.maxConcurrentRequests"), v.get("forwarder.maxAttempts"),
                v.get("forwarder.backoffInitial"), v.get("forwarder.backoffMax"), v.get("forwarder.authRetryInterval"),
                v.get("forwarder.breakerFailureRate"), v.get("forwarder.breakerOpenFor"), v.get("forwarder.maxRetryAfter"),
                v.get("forwarder.maxServerErrors"));
        AdminSettings admin = new AdminSettings(v.get("admin.host"), v.get("admin.port"), v.optional("admin.token"));
        return new BridgeConfig(v.get("edge.id"), dataDir, broker, intake, retention, forwarder, admin,
                v.get("shutdown.timeout"), Map.copyOf(effective));
    }

    /** The known key closest to {@code name}: same letters in another case, or at most a few edits away. */
    static String suggestion(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        for (ConfigKey key : ConfigKeys.ALL) {
            if (key.name().toLowerCase(Locale.ROOT).equals(lower)
                    || key.name().substring(key.name().indexOf('.') + 1).equalsIgnoreCase(lower)) {
                return " (did you mean " + key.name() + "?)";
            }
        }
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (ConfigKey key : ConfigKeys.ALL) {
            int d = distance(lower, key.name().toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                bestDistance = d;
                best = key.name();
            }
        }
        return best != null && bestDistance <= Math.max(2, name.length() / 4) ? " (did you mean " + best + "?)" : "";
    }

    /** Levenshtein distance. */
    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }

    /**
     * What a valid configuration still gets wrong for a site: settings under which no device could connect or no
     * admin action would work. {@code check-config} prints these as warnings.
     */
    public static List<String> warnings(BridgeConfig c) {
        List<String> out = new ArrayList<>();
        boolean certificates = c.broker().tls().map(t -> t.clientAuth() != TlsSettings.ClientAuth.NONE).orElse(false);
        if (!c.broker().anonymous() && c.broker().passwordFile().isEmpty() && !certificates) {
            out.add("auth.anonymous=false, no auth.passwordFile and no client certificates (tls.clientAuth): no device can "
                    + "connect; register devices (device add) and set auth.passwordFile, or set tls.clientAuth");
        }
        if (c.admin().token().isEmpty()) {
            out.add("admin.token is not set: every admin action (POST /api/…: requeue, reject, pause, resume) is refused; "
                    + "set one, e.g. openssl rand -hex 24");
        }
        return out;
    }

    /** Typed access to parsed values. */
    private record Values(Map<String, Object> map) {
        @SuppressWarnings("unchecked")
        <T> T get(String key) {
            Object value = map.get(key);
            if (value == null) {
                throw new IllegalStateException("no value for " + key);
            }
            return (T) value;
        }

        @SuppressWarnings("unchecked")
        <T> Optional<T> optional(String key) {
            return Optional.ofNullable((T) map.get(key));
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
