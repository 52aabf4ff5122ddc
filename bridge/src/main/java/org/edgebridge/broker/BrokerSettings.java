package org.edgebridge.broker;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Pattern;
import org.edgebridge.unit.DataSize;

/**
 * The embedded broker's settings, by concern. No two neighbouring components of these records have one type, or a
 * check in the record catches them swapped, but for {@link BeforeLogin} and {@link LoginThrottle}: two counts each,
 * named at their one call site.
 *
 * @param login how devices log in, and how password checks are run and throttled
 * @param limits bounds on what devices (and anyone who can reach the listeners) can grow
 */
public record BrokerSettings(
        Listener listener, Publishes publishes, Sessions sessions, LoginSettings login, Limits limits) {

    /** A listener port meaning "any free port" (0 cannot say it: {@code mqtt.port=0} switches the listener off). */
    public static final int ANY_PORT = -1;

    /**
     * Where devices connect.
     *
     * @param port plain MQTT port, 0 = no plain listener, {@link #ANY_PORT} = any free one ({@link Broker#mqttPort()})
     * @param tls the TLS listener, if {@code tls.certFile} is set
     * @param ioThreads threads that read and write the device connections of both listeners ({@code mqtt.ioThreads});
     *     0: Netty's default, 2 x the cores
     */
    public record Listener(String host, int port, Optional<TlsSettings> tls, int ioThreads) {}

    /**
     * What devices publish.
     *
     * @param topicPrefix the first level of every device topic
     * @param maxPacket the largest MQTT packet
     * @param maxWaiting PUBLISHes that may wait for the intake thread before device connections stop being read
     * @param pubackAfterCommit a command's PUBACK waits for its commit (the bridge takes the PUBLISH before Moquette);
     *     false: Moquette PUBACKs it on arrival
     * @param maxAwaitingCommit commands of one connection whose PUBACK waits for their commit; past it the
     *     connection is not read until they are answered
     * @param maxBytesAwaitingCommit the same bound in payload bytes
     */
    public record Publishes(
            String topicPrefix,
            DataSize maxPacket,
            int maxWaiting,
            boolean pubackAfterCommit,
            int maxAwaitingCommit,
            DataSize maxBytesAwaitingCommit) {}

    /**
     * Devices' sessions.
     *
     * @param storeDir where the broker keeps sessions and queued receipts
     * @param queueSize receipts in flight to one device
     * @param expiry how long a session of a device that stays away is kept
     * @param takeoverAlarmPerMinute takeovers of one client id per minute that make a takeover storm
     * @param throttleTakeovers refuse CONNECTs of a client id while it is in a takeover storm
     */
    public record Sessions(
            Path storeDir, int queueSize, Duration expiry, int takeoverAlarmPerMinute, boolean throttleTakeovers) {}

    /**
     * @param anonymous devices may connect without a password ({@code auth.anonymous})
     * @param passwordFile the devices' passwords ({@code auth.passwordFile}), if any
     * @param threads threads that check passwords (PBKDF2), off the network threads
     */
    public record LoginSettings(
            boolean anonymous,
            Optional<Path> passwordFile,
            int threads,
            PasswordQueue queue,
            LoginThrottle throttle,
            CertificateLogins certificates) {}

    /**
     * CONNECTs waiting for a password check.
     *
     * @param total CONNECTs that may wait; past it they get CONNACK 3 (and as many of client ids that logged in
     *     before, in a lane of their own)
     * @param recentLoginsFile where the client ids whose password was verified are remembered (their lane)
     * @param perAddress password checks waiting or running for one source address (IPv4, IPv6 /64)
     */
    public record PasswordQueue(int total, Path recentLoginsFile, int perAddress) {}

    /**
     * Failed logins per minute before CONNECTs are refused (CONNACK 3) for the rest of the minute.
     *
     * @param failuresPerClientId of one client id
     * @param failuresPerAddress from one source address
     */
    public record LoginThrottle(int failuresPerClientId, int failuresPerAddress) {}

    /**
     * Devices that log in with a client certificate.
     *
     * @param devicesFile where the client ids that connected with a certificate are remembered
     * @param maxDevices most client ids remembered there
     * @param clientIds client ids that always need their certificate, even the first time
     */
    public record CertificateLogins(Path devicesFile, int maxDevices, Optional<Pattern> clientIds) {}

    /**
     * @param maxKnownDevices client ids the device registry keeps (only ones that logged in)
     * @param maxTopic longest topic of a PUBLISH or a will, UTF-8 bytes
     */
    public record Limits(
            Connections connections,
            BeforeLogin beforeLogin,
            QueuedReceipts receipts,
            int maxKnownDevices,
            DataSize maxTopic) {}

    /**
     * @param max MQTT connections open at once, both listeners; past it a new one is closed at once
     * @param connectTimeout time from the TCP connect until the whole CONNECT must have arrived
     * @param maxPerAddress MQTT connections open at once per source address
     * @param maxConnectBytes largest CONNECT packet; until it has arrived nothing else is read
     * @param maxHeldPackets packets held with a CONNECT until Moquette has taken it; past it the connection is closed
     */
    public record Connections(
            int max, Duration connectTimeout, int maxPerAddress, DataSize maxConnectBytes, int maxHeldPackets) {}

    /**
     * Connections that have not logged in; past either bound the oldest is closed.
     *
     * @param max all together
     * @param maxPerNetwork per IPv4 /24 or IPv6 /64
     */
    public record BeforeLogin(int max, int maxPerNetwork) {}

    /**
     * Receipts the broker may hold queued (a device's bound at most the site's: swapped, they fail here).
     *
     * @param perDevice for one device
     * @param bytesPerDevice the same in bytes
     * @param total for all devices together
     * @param bytesTotal the same in bytes
     */
    public record QueuedReceipts(int perDevice, DataSize bytesPerDevice, int total, DataSize bytesTotal) {
        public QueuedReceipts {
            if (perDevice > total || bytesPerDevice.bytes() > bytesTotal.bytes()) {
                throw new IllegalArgumentException("a device's bound on queued receipts exceeds the site's");
            }
        }
    }
}
