package org.edgebridge.broker;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The embedded broker's settings.
 *
 * @param port plain MQTT port, 0 = no plain listener, {@link #ANY_PORT} = any free one ({@link Broker#mqttPort()} tells which)
 * @param storeDir where the broker keeps sessions and queued receipts
 * @param takeoverAlarmPerMinute takeovers of one client id per minute that make a takeover storm
 * @param throttleTakeovers refuse CONNECTs of a client id while it is in a takeover storm
 * @param login how password checks are run and throttled
 * @param maxWaitingPublishes PUBLISHes that may wait for the intake thread before device connections stop being read
 * @param limits bounds on what devices (and anyone who can reach the listeners) can grow
 * @param pubackAfterCommit a command's PUBACK waits for its commit (the bridge takes the PUBLISH before Moquette);
 *     false: Moquette PUBACKs it on arrival
 */
public record BrokerSettings(
        String host,
        int port,
        String topicPrefix,
        int maxPacketBytes,
        int sessionQueueSize,
        Duration sessionExpiry,
        Path storeDir,
        Optional<TlsSettings> tls,
        boolean anonymous,
        Optional<Path> passwordFile,
        int takeoverAlarmPerMinute,
        boolean throttleTakeovers,
        LoginSettings login,
        int maxWaitingPublishes,
        Limits limits,
        boolean pubackAfterCommit) {

    /** A listener port meaning "any free port" (0 cannot say it: {@code mqtt.port=0} switches the listener off). */
    public static final int ANY_PORT = -1;

    /**
     * @param threads threads that check passwords (PBKDF2), off the network threads
     * @param queue CONNECTs that may wait for a password check; past it they get CONNACK 3 (and as many of client
     *     ids that logged in since start, in a lane of their own)
     * @param queuePerAddress password checks waiting or running for one source address (IPv4, IPv6 /64)
     * @param failuresPerClientId failed logins of one client id per minute before it is throttled (CONNACK 3)
     * @param failuresPerAddress failed logins from one address per minute before it is throttled (CONNACK 3)
     * @param certificateDevicesFile where the client ids that connected with a certificate are remembered
     * @param recentLoginsFile where the client ids whose password was verified are remembered (their lane of checks)
     * @param maxCertificateDevices most client ids remembered there
     * @param certificateClientIds client ids that always need their certificate, even the first time
     */
    /**
     * @param maxConnections MQTT connections open at once, both listeners; past it a new one is closed at once
     * @param maxConnectionsPerAddress the same, per source address
     * @param maxConnectBytes largest CONNECT packet; until it has arrived nothing else is read
     * @param connectTimeout time from the TCP connect until the whole CONNECT must have arrived
     * @param maxKnownDevices client ids the device registry keeps (only ones that logged in)
     * @param maxTopicBytes longest topic of a PUBLISH or a will, UTF-8 bytes
     * @param maxQueuedReceipts receipts the broker may hold queued for one device
     * @param maxQueuedReceiptBytes the same in bytes
     * @param maxQueuedReceiptsTotal receipts the broker may hold queued for all devices together
     * @param maxQueuedReceiptBytesTotal the same in bytes
     * @param maxConnectionsBeforeLogin connections that have not logged in, all together; past it the oldest is closed
     * @param maxConnectionsBeforeLoginPerNetwork the same per IPv4 /24 or IPv6 /64
     * @param maxHeldPackets packets held with a CONNECT until Moquette has taken it; past it the connection is closed
     * @param maxCommandsAwaitingCommit commands of one connection whose PUBACK waits for their commit; past it the
     *     connection is not read until they are answered
     */
    public record Limits(int maxConnections, int maxConnectionsPerAddress, int maxConnectBytes, Duration connectTimeout,
            int maxKnownDevices, int maxTopicBytes, int maxQueuedReceipts, long maxQueuedReceiptBytes,
            int maxQueuedReceiptsTotal, long maxQueuedReceiptBytesTotal, int maxConnectionsBeforeLogin,
            int maxConnectionsBeforeLoginPerNetwork, int maxHeldPackets, int maxCommandsAwaitingCommit) {}

    public record LoginSettings(int threads, int queue, int queuePerAddress, int failuresPerClientId, int failuresPerAddress,
            java.nio.file.Path certificateDevicesFile, java.nio.file.Path recentLoginsFile, int maxCertificateDevices,
            Optional<java.util.regex.Pattern> certificateClientIds) {}
}
