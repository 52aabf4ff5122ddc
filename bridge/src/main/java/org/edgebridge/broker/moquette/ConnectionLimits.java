package org.edgebridge.broker.moquette;

import io.netty.channel.Channel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import org.edgebridge.broker.BrokerLimits;
import org.edgebridge.broker.RefusalLog;
import org.jspecify.annotations.Nullable;

/**
 * Not a Moquette bug, bounds the bridge adds: MQTT connections open at once, in total ({@code mqtt.maxConnections})
 * and per source address ({@code mqtt.maxConnectionsPerAddress}), over both listeners, with a lane of their own for
 * connections that have not logged in yet: at most {@code mqtt.maxConnectionsBeforeLogin} of them in all and
 * {@code mqtt.maxConnectionsBeforeLoginPerNetwork} per IPv4 /24 or IPv6 /64. Proven by {@code BeforeLoginLimitsIT}
 * and {@code StrangersLaneIT}.
 *
 * <p>Strangers must not crowd out devices: 1,100 idle sockets from the devices' own NAT address used to
 * fill {@code mqtt.maxConnectionsPerAddress} and keep every new device out. So when a cap is reached, the OLDEST
 * connection that has not logged in (of that address, of that network, or anywhere, as the cap is) is closed to make
 * room, and a new connection is refused only when every connection under the cap has logged in. A new connection is
 * closed before any handler or buffer is made for it.
 *
 * <p>Bounded by the open connections. Thread-safe: called on the listeners' event loops; one short lock, no I/O
 * under it (connections are closed after it is released).
 */
final class ConnectionLimits {
    private final int maxTotal;
    private final int maxPerAddress;
    private final int maxBeforeLogin;
    private final int maxBeforeLoginPerNetwork;
    private final BrokerLimits limits;
    private final RefusalLog log;

    /** A connection counted: where it comes from and whether it logged in. */
    private static final class Entry {
        final @Nullable InetAddress address;
        final @Nullable String network;
        boolean loggedIn;

        Entry(@Nullable InetAddress address, @Nullable String network) {
            this.address = address;
            this.network = network;
        }
    }

    // guarded by this
    private final Map<Channel, Entry> open = new HashMap<>();
    private final Map<InetAddress, Integer> perAddress = new HashMap<>();
    private final LinkedHashSet<Channel> beforeLogin = new LinkedHashSet<>();
    private final Map<InetAddress, LinkedHashSet<Channel>> beforeLoginByAddress = new HashMap<>();
    private final Map<String, LinkedHashSet<Channel>> beforeLoginByNetwork = new HashMap<>();

    ConnectionLimits(
            int maxTotal,
            int maxPerAddress,
            int maxBeforeLogin,
            int maxBeforeLoginPerNetwork,
            BrokerLimits limits,
            RefusalLog log) {
        this.maxTotal = maxTotal;
        this.maxPerAddress = maxPerAddress;
        this.maxBeforeLogin = maxBeforeLogin;
        this.maxBeforeLoginPerNetwork = maxBeforeLoginPerNetwork;
        this.limits = limits;
        this.log = log;
    }

    /**
     * Counts a connection just accepted, until it closes, as one that has not logged in; closes the oldest such
     * connections a cap needs closed.
     *
     * @return false if it is one too many (every connection under the cap logged in): the caller closes it and builds
     *     nothing for it
     */
    boolean admit(Channel channel) {
        InetAddress address = channel.remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
        String network = address == null ? null : network(address);
        List<Channel> oldest = new ArrayList<>();
        String refused = null;
        synchronized (this) {
            if (open.size() >= maxTotal) {
                limits.connectionRefusedTotal();
                if (!makeRoom(beforeLogin, oldest)) {
                    refused = maxTotal + " MQTT connections are open, all logged in (mqtt.maxConnections)";
                }
            }
            if (refused == null && address != null && perAddress.getOrDefault(address, 0) >= maxPerAddress) {
                limits.connectionRefusedPerAddress();
                if (!makeRoom(beforeLoginByAddress.get(address), oldest)) {
                    refused = maxPerAddress + " MQTT connections from that address are open, all logged in "
                            + "(mqtt.maxConnectionsPerAddress)";
                }
            }
            if (refused == null) {
                if (beforeLogin.size() >= maxBeforeLogin && makeRoom(beforeLogin, oldest)) {
                    limits.beforeLoginOldestClosed();
                }
                if (network != null
                        && sizeOf(beforeLoginByNetwork.get(network)) >= maxBeforeLoginPerNetwork
                        && makeRoom(beforeLoginByNetwork.get(network), oldest)) {
                    limits.beforeLoginOldestClosed();
                }
                open.put(channel, new Entry(address, network));
                if (address != null) {
                    perAddress.merge(address, 1, Integer::sum);
                    beforeLoginByAddress
                            .computeIfAbsent(address, k -> new LinkedHashSet<>())
                            .add(channel);
                }
                if (network != null) {
                    beforeLoginByNetwork
                            .computeIfAbsent(network, k -> new LinkedHashSet<>())
                            .add(channel);
                }
                beforeLogin.add(channel);
            }
        }
        if (refused != null) {
            log.warn(
                    refused.contains("address") ? "connections-per-address" : "connections",
                    "",
                    "closed a new connection from " + address + ": " + refused);
            closeAll(oldest);
            return false;
        }
        if (!oldest.isEmpty()) {
            log.warn(
                    "connections-before-login",
                    "",
                    "closed " + oldest.size() + " connection(s) that had not logged in, the "
                            + "oldest, to make room for a new one from " + address
                            + " (mqtt.maxConnectionsBeforeLogin, "
                            + "mqtt.maxConnectionsBeforeLoginPerNetwork, mqtt.maxConnections, "
                            + "mqtt.maxConnectionsPerAddress)");
            closeAll(oldest);
        }
        channel.closeFuture().addListener(f -> release(channel));
        return true;
    }

    /** The connection's CONNECT was accepted: it leaves the lane of those that have not logged in. */
    synchronized void loggedIn(Channel channel) {
        Entry e = open.get(channel);
        if (e != null && !e.loggedIn) {
            e.loggedIn = true;
            leaveLane(channel, e);
        }
    }

    /** Moves the oldest connection of {@code lane} that has not logged in out of every count, into {@code closing}. */
    private boolean makeRoom(@Nullable LinkedHashSet<Channel> lane, List<Channel> closing) {
        if (lane == null || lane.isEmpty()) {
            return false;
        }
        Channel oldest = lane.iterator().next();
        release(oldest);
        closing.add(oldest);
        return true;
    }

    private synchronized void release(Channel channel) {
        Entry e = open.remove(channel);
        if (e == null) {
            return; // released already (made room for a newer one)
        }
        if (e.address != null) {
            perAddress.computeIfPresent(e.address, (k, n) -> n <= 1 ? null : n - 1);
        }
        if (!e.loggedIn) {
            leaveLane(channel, e);
        }
    }

    private void leaveLane(Channel channel, Entry e) {
        beforeLogin.remove(channel);
        if (e.address != null) {
            removeFrom(beforeLoginByAddress, e.address, channel);
        }
        if (e.network != null) {
            removeFrom(beforeLoginByNetwork, e.network, channel);
        }
    }

    private static <K> void removeFrom(Map<K, LinkedHashSet<Channel>> lanes, K key, Channel channel) {
        LinkedHashSet<Channel> lane = lanes.get(key);
        if (lane != null && lane.remove(channel) && lane.isEmpty()) {
            lanes.remove(key);
        }
    }

    private static int sizeOf(@Nullable LinkedHashSet<Channel> lane) {
        return lane == null ? 0 : lane.size();
    }

    private static void closeAll(List<Channel> channels) {
        channels.forEach(Channel::close);
    }

    /** The network an address is in, for the lane's per-network cap: its IPv4 /24 or its IPv6 /64. */
    static String network(InetAddress address) {
        byte[] bytes = address.getAddress();
        int prefix = bytes.length == 4 ? 3 : 8;
        return HexFormat.of().formatHex(bytes, 0, Math.min(prefix, bytes.length)) + "/" + prefix * 8;
    }

    /** MQTT connections open now, on both listeners. */
    synchronized int open() {
        return open.size();
    }

    /** Of those, the ones that have not logged in. */
    synchronized int openBeforeLogin() {
        return beforeLogin.size();
    }
}
