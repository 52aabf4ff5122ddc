package org.edgebridge.broker;

/**
 * How often the broker's bounds on what devices can grow have bitten since start (docs/configuration.md has the
 * settings).
 *
 * @param retainFlagsCleared PUBLISHes that came with retain=1 and were taken without it
 * @param retainedClearedAtStart retained messages found in the broker store at start and removed
 * @param openConnections MQTT connections open now (both listeners)
 * @param connectionsRefusedTotal connections closed because {@code mqtt.maxConnections} were open: the oldest that
 *     had not logged in, or the new one when all had
 * @param connectionsRefusedPerAddress the same for {@code mqtt.maxConnectionsPerAddress}
 * @param packetsBeforeConnect connections closed because their first packet was not a CONNECT
 * @param connectsTooLarge connections closed because their CONNECT was longer than {@code mqtt.maxConnectBytes}
 * @param connectsTimedOut connections closed because no whole CONNECT came within {@code mqtt.connectTimeout}
 * @param knownDevices client ids in the device registry ({@code /api/devices}), at most {@code mqtt.maxKnownDevices}
 * @param forgottenDevices client ids dropped from the registry to make room for new ones
 * @param refusalLinesLeftOut refusal log lines left out (one per kind and client id, and ten per kind, a minute)
 * @param topicsTooLong connections closed (or CONNECTs refused) for a topic longer than {@code mqtt.maxTopicBytes}
 * @param receiptsDropped receipts not queued for a device whose queue was full ({@code mqtt.maxQueuedReceipts},
 *     {@code mqtt.maxQueuedReceiptBytes}); the outbox answers its resend with them
 * @param mostQueuedReceipts the most receipts the broker held queued for one device, as last seen
 * @param devicesWithQueuedReceipts devices with receipts queued, as last seen
 * @param receiptsDroppedSiteFull receipts not queued because the queues of all devices together were full
 *     ({@code mqtt.maxQueuedReceiptsTotal}, {@code mqtt.maxQueuedReceiptBytesTotal}); answered on resend too
 * @param queuedReceipts receipts queued or on their way for all devices, as last seen
 * @param queuedReceiptBytes their bytes (those queued before start at the average allowed size)
 * @param heldTooMany connections closed because they sent more than {@code mqtt.maxHeldPackets} packets before
 *     Moquette had taken their CONNECT
 * @param openBeforeLogin connections open now that have not logged in (their lane: {@code
 *     mqtt.maxConnectionsBeforeLogin})
 * @param beforeLoginOldestClosed connections that had not logged in closed, the oldest, to make room for a new one
 *     ({@code mqtt.maxConnectionsBeforeLogin}, {@code mqtt.maxConnectionsBeforeLoginPerNetwork})
 * @param awaitingCommitPauses times a connection stopped being read because {@code mqtt.maxCommandsAwaitingCommit}
 *     of its commands, or {@code mqtt.maxBytesAwaitingCommit} of their payloads, waited for their commit (and PUBACK)
 * @param mostAwaitingCommit the most commands of one connection seen waiting for their commit since start
 * @param mostAwaitingCommitBytes the most payload bytes of one connection seen waiting for their commit since start
 */
public record BrokerLimitsStatus(
        long retainFlagsCleared,
        long retainedClearedAtStart,
        int openConnections,
        long connectionsRefusedTotal,
        long connectionsRefusedPerAddress,
        long packetsBeforeConnect,
        long connectsTooLarge,
        long connectsTimedOut,
        int knownDevices,
        long forgottenDevices,
        long refusalLinesLeftOut,
        long topicsTooLong,
        long receiptsDropped,
        int mostQueuedReceipts,
        int devicesWithQueuedReceipts,
        long receiptsDroppedSiteFull,
        long queuedReceipts,
        long queuedReceiptBytes,
        long heldTooMany,
        int openBeforeLogin,
        long beforeLoginOldestClosed,
        long awaitingCommitPauses,
        int mostAwaitingCommit,
        long mostAwaitingCommitBytes) {}
