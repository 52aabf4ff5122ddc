package org.edgebridge.broker;

import java.util.concurrent.atomic.AtomicInteger;
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
    private final AtomicLong heldTooMany = new AtomicLong();
    private final AtomicLong beforeLoginOldestClosed = new AtomicLong();
    private final AtomicLong awaitingCommitPauses = new AtomicLong();
    private final AtomicInteger mostAwaitingCommit = new AtomicInteger();
    private final AtomicLong mostAwaitingCommitBytes = new AtomicLong();

    /** A PUBLISH came with retain=1; it was passed on without it (the bridge stores no retained messages). */
    public void retainFlagCleared() {
        retainFlagsCleared.incrementAndGet();
    }

    /** Retained messages found in the broker store at start (an older bridge kept them) and removed. */
    public void retainedClearedAtStart(int n) {
        retainedClearedAtStart.addAndGet(n);
    }

    /**
     * {@code mqtt.maxConnections} were open when a new one came: the oldest that had not logged in was closed, or,
     * when all had, the new one.
     */
    public void connectionRefusedTotal() {
        connectionsRefusedTotal.incrementAndGet();
    }

    /** The same for {@code mqtt.maxConnectionsPerAddress} of the new connection's address. */
    public void connectionRefusedPerAddress() {
        connectionsRefusedPerAddress.incrementAndGet();
    }

    /**
     * The oldest connection that had not logged in was closed to make room for a new one:
     * {@code mqtt.maxConnectionsBeforeLogin} or {@code mqtt.maxConnectionsBeforeLoginPerNetwork} were open.
     */
    public void beforeLoginOldestClosed() {
        beforeLoginOldestClosed.incrementAndGet();
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

    /** A connection sent more than {@code mqtt.maxHeldPackets} packets before Moquette had taken its CONNECT. */
    public void heldTooMany() {
        heldTooMany.incrementAndGet();
    }

    /**
     * A connection had {@code mqtt.maxCommandsAwaitingCommit} commands, or {@code mqtt.maxBytesAwaitingCommit} of
     * payload, waiting for their commit (and PUBACK): it is not read until enough are answered.
     */
    public void awaitingCommitPaused() {
        awaitingCommitPauses.incrementAndGet();
    }

    /** A connection has {@code n} commands, of {@code bytes} payload bytes, waiting for their commit now. */
    public void awaitingCommit(int n, long bytes) {
        if (n > mostAwaitingCommit.get()) {
            mostAwaitingCommit.accumulateAndGet(n, Math::max);
        }
        if (bytes > mostAwaitingCommitBytes.get()) {
            mostAwaitingCommitBytes.accumulateAndGet(bytes, Math::max);
        }
    }

    /**
     * @param openConnections MQTT connections open now
     * @param openBeforeLogin of those, the ones that have not logged in
     * @param devices the device registry, for its size and what it forgot
     * @param log the refusal log, for the lines it left out
     * @param receipts the bound on queued receipts, for what it dropped
     */
    public BrokerLimitsStatus status(
            int openConnections, int openBeforeLogin, DeviceRegistry devices, RefusalLog log, ReceiptQueues receipts) {
        return new BrokerLimitsStatus(
                retainFlagsCleared.get(),
                retainedClearedAtStart.get(),
                openConnections,
                connectionsRefusedTotal.get(),
                connectionsRefusedPerAddress.get(),
                packetsBeforeConnect.get(),
                connectsTooLarge.get(),
                connectsTimedOut.get(),
                devices.size(),
                devices.forgotten(),
                log.leftOut(),
                topicsTooLong.get(),
                receipts.dropped(),
                receipts.mostQueued(),
                receipts.devices(),
                receipts.droppedSiteFull(),
                receipts.totalEntries(),
                receipts.totalBytes(),
                heldTooMany.get(),
                openBeforeLogin,
                beforeLoginOldestClosed.get(),
                awaitingCommitPauses.get(),
                mostAwaitingCommit.get(),
                mostAwaitingCommitBytes.get());
    }
}
