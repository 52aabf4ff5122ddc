package org.edgebridge.broker;

import java.util.concurrent.atomic.AtomicLong;

/**
 * How often each of the broker's bounds on what devices can grow has bitten since start; {@link #status()} is what
 * {@code /api/status} shows under {@code broker.limits}. Thread-safe; every method is a counter increment.
 */
public final class BrokerLimits {
    private final AtomicLong retainFlagsCleared = new AtomicLong();
    private final AtomicLong retainedClearedAtStart = new AtomicLong();
    private final AtomicLong connectionsRefusedTotal = new AtomicLong();
    private final AtomicLong connectionsRefusedPerAddress = new AtomicLong();
    private final AtomicLong packetsBeforeConnect = new AtomicLong();
    private final AtomicLong connectsTooLarge = new AtomicLong();
    private final AtomicLong connectsTimedOut = new AtomicLong();
    private final AtomicLong topicsTooLong = new AtomicLong();

    /** A PUBLISH came with retain=1; it was passed on without it (the bridge stores no retained messages). */
    public void retainFlagCleared() {
        retainFlagsCleared.incrementAndGet();
    }

    /** Retained messages found in the broker store at start (an older bridge kept them) and removed. */
    public void retainedClearedAtStart(int n) {
        retainedClearedAtStart.addAndGet(n);
    }

    /** A new connection was closed at once: {@code mqtt.maxConnections} were open. */
    public void connectionRefusedTotal() {
        connectionsRefusedTotal.incrementAndGet();
    }

    /** A new connection was closed at once: {@code mqtt.maxConnectionsPerAddress} from its address were open. */
    public void connectionRefusedPerAddress() {
        connectionsRefusedPerAddress.incrementAndGet();
    }

    /** A connection's first packet was not a CONNECT. */
    public void packetBeforeConnect() {
        packetsBeforeConnect.incrementAndGet();
    }

    /** A connection's CONNECT was longer than {@code mqtt.maxConnectBytes}. */
    public void connectTooLarge() {
        connectsTooLarge.incrementAndGet();
    }

    /** A connection's CONNECT had not arrived whole within {@code mqtt.connectTimeout}. */
    public void connectTimedOut() {
        connectsTimedOut.incrementAndGet();
    }

    /** A PUBLISH (or a will) had a topic longer than {@code mqtt.maxTopicBytes}. */
    public void topicTooLong() {
        topicsTooLong.incrementAndGet();
    }

    /**
     * @param openConnections MQTT connections open now
     * @param devices the device registry, for its size and what it forgot
     * @param log the refusal log, for the lines it left out
     * @param receipts the bound on queued receipts, for what it dropped
     */
    public BrokerLimitsStatus status(int openConnections, DeviceRegistry devices, RefusalLog log, ReceiptQueues receipts) {
        return new BrokerLimitsStatus(retainFlagsCleared.get(), retainedClearedAtStart.get(), openConnections,
                connectionsRefusedTotal.get(), connectionsRefusedPerAddress.get(), packetsBeforeConnect.get(),
                connectsTooLarge.get(), connectsTimedOut.get(), devices.size(), devices.forgotten(), log.leftOut(),
                topicsTooLong.get(), receipts.dropped(), receipts.mostQueued(), receipts.devices(),
                receipts.droppedSiteFull(), receipts.totalEntries(), receipts.totalBytes());
    }
}
