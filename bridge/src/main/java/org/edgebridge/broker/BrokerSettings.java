package org.edgebridge.broker;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The embedded broker's settings.
 *
 * @param port plain MQTT port, 0 = no plain listener
 * @param storeDir where the broker keeps sessions and queued receipts
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
        Optional<Path> passwordFile) {}
