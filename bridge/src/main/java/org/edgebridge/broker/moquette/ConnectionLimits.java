package org.edgebridge.broker.moquette;

import io.netty.channel.Channel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.edgebridge.broker.BrokerLimits;
import org.edgebridge.broker.RefusalLog;

/**
 * Not a Moquette bug, a bound the bridge adds: MQTT connections open at once, in total
 * ({@code mqtt.maxConnections}) and per source address ({@code mqtt.maxConnectionsPerAddress}), over both listeners.
 * A connection past either is closed as soon as it is accepted, before any handler or buffer is made for it.
 * Proven by {@code ConnectionLimitsIT}.
 *
 * <p>The map of addresses holds only addresses with an open connection, so it is bounded by
 * {@code mqtt.maxConnections}. Thread-safe: called on the listeners' event loops.
 */
final class ConnectionLimits {
    private final int maxTotal;
    private final int maxPerAddress;
    private final BrokerLimits limits;
    private final RefusalLog log;
    private final AtomicInteger open = new AtomicInteger();
    private final ConcurrentMap<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();

    ConnectionLimits(int maxTotal, int maxPerAddress, BrokerLimits limits, RefusalLog log) {
        this.maxTotal = maxTotal;
        this.maxPerAddress = maxPerAddress;
        this.limits = limits;
        this.log = log;
    }

    /**
     * Counts a connection just accepted, until it closes.
     *
     * @return false if it is one too many: the caller closes it and builds nothing for it
     */
    boolean admit(Channel channel) {
        InetAddress address = channel.remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
        if (open.incrementAndGet() > maxTotal) {
            open.decrementAndGet();
            limits.connectionRefusedTotal();
            log.warn("connections", "", "closed a new connection from " + address + ": " + maxTotal
                    + " MQTT connections are open (mqtt.maxConnections)");
            return false;
        }
        if (address != null) {
            boolean[] over = {false};
            perAddress.compute(address, (k, n) -> {
                int now = n == null ? 0 : n;
                over[0] = now >= maxPerAddress;
                return over[0] ? n : now + 1;
            });
            if (over[0]) {
                open.decrementAndGet();
                limits.connectionRefusedPerAddress();
                log.warn("connections-per-address", "", "closed a new connection from " + address + ": " + maxPerAddress
                        + " MQTT connections from that address are open (mqtt.maxConnectionsPerAddress)");
                return false;
            }
        }
        channel.closeFuture().addListener(f -> {
            open.decrementAndGet();
            if (address != null) {
                perAddress.computeIfPresent(address, (k, n) -> n <= 1 ? null : n - 1);
            }
        });
        return true;
    }

    /** MQTT connections open now, on both listeners. */
    int open() {
        return open.get();
    }
}
