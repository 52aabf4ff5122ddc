package org.edgebridge.broker;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The embedded broker's settings.
 *
 * @param port plain MQTT port, 0 = no plain listener
 * @param storeDir where the broker keeps sessions and queued receipts
 * @param takeoverAlarmPerMinute takeovers of one client id per minute that make a takeover storm
 * @param throttleTakeovers refuse CONNECTs of a client id while it is in a takeover storm
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
        boolean throttleTakeovers) {}
