package org.edgebridge.config;

import static org.edgebridge.config.ConfigKey.boolKey;
import static org.edgebridge.config.ConfigKey.durationKey;
import static org.edgebridge.config.ConfigKey.enumKey;
import static org.edgebridge.config.ConfigKey.intKey;
import static org.edgebridge.config.ConfigKey.intSizeKey;
import static org.edgebridge.config.ConfigKey.matchingKey;
import static org.edgebridge.config.ConfigKey.optionalPathKey;
import static org.edgebridge.config.ConfigKey.portKey;
import static org.edgebridge.config.ConfigKey.sizeKey;
import static org.edgebridge.config.ConfigKey.textKey;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Pattern;
import org.edgebridge.broker.BrokerSettings;
import org.edgebridge.broker.TlsSettings.ClientAuth;

/**
 * The keys of the embedded broker ({@code mqtt.*}, {@code tls.*}, {@code auth.*}): listeners, the bounds on what
 * devices can open, send and hold, TLS with client certificates, and device logins. Part of {@link ConfigKeys#ALL}.
 */
public final class BrokerKeys {
    private static final long KiB = 1024;
    private static final long MiB = 1024 * KiB;

    public static final ConfigKey<String> MQTT_HOST = textKey(
                    "mqtt.host", "0.0.0.0", "bind address of the MQTT listeners (plain and TLS)")
            .see("docs/protocol.md#11-listeners");
    public static final ConfigKey<Integer> MQTT_PORT = portKey(
                    "mqtt.port",
                    1883,
                    0,
                    BrokerSettings.ANY_PORT,
                    "port of the plain MQTT listener; 0 switches it off, any picks a free one")
            .see("docs/protocol.md#11-listeners");
    public static final ConfigKey<Integer> MQTT_IO_THREADS = intKey(
                    "mqtt.ioThreads",
                    0,
                    0,
                    256,
                    "threads that read and write the device connections; 0: Netty's default, 2 x the cores")
            .see("docs/moquette.md#the-io-threads-of-the-bridges-listeners-mqttlisteners-mqttiothreads");
    public static final ConfigKey<String> MQTT_TOPIC_PREFIX = matchingKey(
                    "mqtt.topicPrefix",
                    "devices",
                    Pattern.compile("[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*"),
                    "topic levels of [A-Za-z0-9_.-] separated by /, without wildcards",
                    "first topic level(s) of device topics: {prefix}/{clientId}/commands/#")
            .see("docs/protocol.md#13-topics");
    public static final ConfigKey<Integer> MQTT_MAX_PACKET_BYTES = intSizeKey(
                    "mqtt.maxPacketBytes",
                    "524288",
                    1024,
                    268_435_455,
                    "largest MQTT packet accepted; a larger one closes the connection")
            .see("docs/moquette.md#what-we-set-and-why-moquetteproperties");
    public static final ConfigKey<Integer> MQTT_SESSION_QUEUE_SIZE = intKey(
                    "mqtt.sessionQueueSize",
                    8192,
                    1024,
                    1_048_576,
                    "capacity of each broker session-loop command queue")
            .see("docs/moquette.md#what-we-set-and-why-moquetteproperties");
    public static final ConfigKey<Duration> MQTT_SESSION_EXPIRY = durationKey(
                    "mqtt.sessionExpiry",
                    "7d",
                    Duration.ofMinutes(1),
                    Duration.ofDays(24),
                    "how long the broker keeps the session of a device that stays away")
            .see("docs/moquette.md#what-we-set-and-why-moquetteproperties");
    public static final ConfigKey<Integer> MQTT_MAX_CONNECTIONS = intKey(
                    "mqtt.maxConnections", 4096, 1, 1_000_000, "MQTT connections open at once, both listeners together")
            .see("docs/device-security.md#before-the-connect");
    public static final ConfigKey<Integer> MQTT_MAX_CONNECTIONS_PER_ADDRESS = intKey(
                    "mqtt.maxConnectionsPerAddress",
                    1024,
                    1,
                    1_000_000,
                    "MQTT connections open at once from one source address (devices behind one NAT share one)")
            .see("docs/device-security.md#before-the-connect");
    public static final ConfigKey<Integer> MQTT_MAX_CONNECTIONS_BEFORE_LOGIN = intKey(
                    "mqtt.maxConnectionsBeforeLogin",
                    1024,
                    1,
                    1_000_000,
                    "connections that have not logged in yet, all together: their own lane inside mqtt.maxConnections")
            .see("docs/device-security.md#before-the-connect");
    public static final ConfigKey<Integer> MQTT_MAX_CONNECTIONS_BEFORE_LOGIN_PER_NETWORK = intKey(
                    "mqtt.maxConnectionsBeforeLoginPerNetwork",
                    768,
                    1,
                    1_000_000,
                    "the same per source network (IPv4 /24, IPv6 /64)")
            .see("docs/device-security.md#before-the-connect");
    public static final ConfigKey<Integer> MQTT_MAX_HELD_PACKETS = intKey(
                    "mqtt.maxHeldPackets",
                    100,
                    1,
                    1_000_000,
                    "packets a client may send along with its CONNECT, held until the broker has taken it")
            .see("docs/device-security.md#before-the-connect");
    public static final ConfigKey<Boolean> MQTT_PUBACK_AFTER_COMMIT = boolKey(
                    "mqtt.pubackAfterCommit",
                    true,
                    "true: a QoS 1 command's PUBACK waits for its commit to the outbox; false: PUBACK on arrival")
            .see("docs/protocol.md#15-receipts");
    public static final ConfigKey<Integer> MQTT_MAX_COMMANDS_AWAITING_COMMIT = intKey(
                    "mqtt.maxCommandsAwaitingCommit",
                    32,
                    1,
                    65_535,
                    "QoS 1 commands of one connection whose PUBACK may wait for their commit at once")
            .see("docs/protocol.md#15-receipts");
    public static final ConfigKey<Integer> MQTT_MAX_BYTES_AWAITING_COMMIT = intSizeKey(
                    "mqtt.maxBytesAwaitingCommit",
                    "1MiB",
                    1024,
                    1024 * 1024 * 1024,
                    "payload bytes of one connection's commands whose PUBACK may wait for their commit at once")
            .see("docs/protocol.md#15-receipts");
    public static final ConfigKey<Integer> MQTT_MAX_CONNECT_BYTES = intSizeKey(
                    "mqtt.maxConnectBytes",
                    "16KiB",
                    256,
                    16 * 1024 * 1024,
                    "largest CONNECT packet (client id, credentials and Last Will), the first packet of a connection")
            .see("docs/device-security.md#before-the-connect");
    public static final ConfigKey<Duration> MQTT_CONNECT_TIMEOUT = durationKey(
                    "mqtt.connectTimeout",
                    "10s",
                    Duration.ofSeconds(1),
                    Duration.ofMinutes(5),
                    "time from the TCP connect (TLS handshake included) until the whole CONNECT must have arrived")
            .see("docs/device-security.md#before-the-connect");
    public static final ConfigKey<Integer> MQTT_MAX_TOPIC_BYTES = intSizeKey(
                    "mqtt.maxTopicBytes",
                    "512",
                    64,
                    65_535,
                    "longest topic of a PUBLISH or a Last Will, in UTF-8 bytes")
            .see("docs/protocol.md#13-topics");
    public static final ConfigKey<Integer> MQTT_MAX_QUEUED_RECEIPTS = intKey(
                    "mqtt.maxQueuedReceipts",
                    2000,
                    10,
                    1_000_000,
                    "receipts the broker holds queued for one device that does not read them")
            .see("docs/protocol.md#16-sessions");
    public static final ConfigKey<Long> MQTT_MAX_QUEUED_RECEIPT_BYTES = sizeKey(
                    "mqtt.maxQueuedReceiptBytes",
                    "1MiB",
                    16 * KiB,
                    1024 * MiB,
                    "bytes of receipts the broker holds queued for one device")
            .see("docs/protocol.md#16-sessions");
    public static final ConfigKey<Integer> MQTT_MAX_QUEUED_RECEIPTS_TOTAL = intKey(
                    "mqtt.maxQueuedReceiptsTotal",
                    200_000,
                    10,
                    100_000_000,
                    "receipts the broker holds queued for all devices together")
            .see("docs/protocol.md#16-sessions");
    public static final ConfigKey<Long> MQTT_MAX_QUEUED_RECEIPT_BYTES_TOTAL = sizeKey(
                    "mqtt.maxQueuedReceiptBytesTotal",
                    "256MiB",
                    16 * KiB,
                    64L * 1024 * MiB,
                    "bytes of receipts the broker holds queued for all devices together")
            .see("docs/protocol.md#16-sessions");
    public static final ConfigKey<Integer> MQTT_MAX_KNOWN_DEVICES = intKey(
                    "mqtt.maxKnownDevices",
                    10000,
                    10,
                    1_000_000,
                    "client ids the device registry (/api/devices) keeps, about 2 KB each")
            .see("docs/device-security.md#the-device-registry-holds-only-devices-that-logged-in");
    public static final ConfigKey<Integer> MQTT_TAKEOVER_ALARM_PER_MINUTE = intKey(
                    "mqtt.takeoverAlarmPerMinute",
                    10,
                    1,
                    1_000_000,
                    "session takeovers of one client id per minute that raise a takeover-storm alarm")
            .see("docs/device-security.md#connect-step-by-step");
    public static final ConfigKey<Boolean> MQTT_THROTTLE_TAKEOVERS = boolKey(
                    "mqtt.throttleTakeovers",
                    false,
                    "true refuses CONNECTs of a client id in a takeover storm (CONNACK 3) until it calms down")
            .see("docs/device-security.md#connect-step-by-step");
    public static final ConfigKey<Integer> TLS_PORT = portKey(
                    "tls.port",
                    8883,
                    1,
                    BrokerSettings.ANY_PORT,
                    "port of the TLS MQTT listener, on when tls.certFile is set; any picks a free one")
            .see("docs/protocol.md#11-listeners");
    public static final ConfigKey<Optional<Path>> TLS_CERT_FILE =
            optionalPathKey("tls.certFile", "server certificate chain, PEM").see("docs/protocol.md#11-listeners");
    public static final ConfigKey<Optional<Path>> TLS_KEY_FILE =
            optionalPathKey("tls.keyFile", "server private key, PEM").see("docs/protocol.md#11-listeners");
    public static final ConfigKey<Optional<Path>> TLS_CA_FILE = optionalPathKey(
                    "tls.caFile", "CA certificates that sign device certificates, PEM")
            .see("docs/protocol.md#11-listeners");
    public static final ConfigKey<ClientAuth> TLS_CLIENT_AUTH = enumKey(
                    "tls.clientAuth",
                    ClientAuth.NONE,
                    ClientAuth.class,
                    "client certificates: none, optional or required")
            .see("docs/device-security.md#no-impersonation-across-listeners");
    public static final ConfigKey<Boolean> AUTH_ANONYMOUS = boolKey(
                    "auth.anonymous", false, "true lets client ids that are not registered connect without credentials")
            .see("docs/device-security.md#credentials");
    public static final ConfigKey<Optional<Path>> AUTH_PASSWORD_FILE = optionalPathKey(
                    "auth.passwordFile", "the registered devices, one clientId:username:hash a line")
            .see("docs/device-security.md#registered-devices-the-password-file");
    public static final ConfigKey<Integer> AUTH_THREADS = intKey(
                    "auth.threads", 1, 1, 64, "threads that check passwords (PBKDF2), apart from the network threads")
            .see("docs/device-security.md#credentials");
    public static final ConfigKey<Integer> AUTH_QUEUE = intKey(
                    "auth.queue", 256, 1, 100_000, "CONNECTs that may wait for a password check, all together")
            .see("docs/device-security.md#credentials");
    public static final ConfigKey<Integer> AUTH_QUEUE_PER_ADDRESS = intKey(
                    "auth.queuePerAddress",
                    8,
                    1,
                    100_000,
                    "password checks waiting or running for one source address (IPv4, IPv6 /64)")
            .see("docs/device-security.md#credentials");
    public static final ConfigKey<Integer> AUTH_FAILED_LOGINS_PER_CLIENT_ID = intKey(
                    "auth.failedLoginsPerClientId",
                    10,
                    1,
                    1_000_000,
                    "failed logins of one client id in a minute after which its logins get CONNACK 3")
            .see("docs/device-security.md#credentials");
    public static final ConfigKey<Integer> AUTH_FAILED_LOGINS_PER_ADDRESS = intKey(
                    "auth.failedLoginsPerAddress",
                    100,
                    1,
                    1_000_000,
                    "failed logins from one source address in a minute after which its logins get CONNACK 3")
            .see("docs/device-security.md#credentials");
    public static final ConfigKey<Optional<Pattern>> AUTH_CERTIFICATE_CLIENT_IDS = new ConfigKey<>(
            "auth.certificateClientIds",
            null,
            "a regular expression",
            "client ids (the whole id matching) that always need their client certificate, e.g. terminal-.*",
            ValueParsers::optionalRegex,
            Optional.empty(),
            "docs/device-security.md#no-impersonation-across-listeners");
    public static final ConfigKey<Integer> AUTH_MAX_CERTIFICATE_DEVICES = intKey(
                    "auth.maxCertificateDevices",
                    100000,
                    1,
                    10_000_000,
                    "client ids remembered as needing their client certificate (data.dir/certificate-devices)")
            .see("docs/device-security.md#no-impersonation-across-listeners");

    private BrokerKeys() {}
}
