package org.edgebridge.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on loopback between two real parties (devices and the bridge, or the bridge and central) that
 * can break the link the ways a site network does:
 * <ul>
 *   <li>{@link #cutAll()}: every open connection is reset at once; new ones work;</li>
 *   <li>{@link #refuse(boolean)}: new connections are reset right after accept (and open ones cut);</li>
 *   <li>{@link #blackHole(boolean)}: bytes stop flowing both ways but connections stay open, as when packets
 *       vanish; what was held is delivered when the hole closes, as TCP would once its retransmits got
 *       through — unless a side gave up on the connection first.</li>
 * </ul>
 * Threads: "proxy-NAME-accept" and two pumps per connection, all owned by this object and ended by
 * {@link #close()}.
 */
final class TcpProxy implements AutoCloseable {
    private final String name;
    private final int upstreamPort;
    private final ServerSocket server;
    private final Thread acceptor;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final Object gate = new Object();
    private final AtomicLong accepted = new AtomicLong();
    private volatile boolean holding;
    private volatile boolean refusing;
    private volatile boolean closed;

    TcpProxy(String name, int upstreamPort) throws IOException {
        this.name = name;
        this.upstreamPort = upstreamPort;
        this.server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
        this.acceptor = new Thread(this::acceptLoop, "proxy-" + name + "-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** Connections accepted so far. */
    long accepted() {
        return accepted.get();
    }

    /** Resets every open connection. @return how many were cut */
    int cutAll() {
        int cut = 0;
        for (Link link : links) {
            link.reset();
            cut++;
        }
        return cut;
    }

    /** While on, open connections are cut and new ones reset at once (connection refused/reset). */
    void refuse(boolean on) {
        refusing = on;
        if (on) {
            cutAll();
        }
    }

    /** While on, no byte passes either way; connections stay open. */
    void blackHole(boolean on) {
        synchronized (gate) {
            holding = on;
            gate.notifyAll();
        }
    }

    /** Back to a healthy link. */
    void heal() {
        refuse(false);
        blackHole(false);
    }

    private void acceptLoop() {
        while (!closed) {
            Socket downstream;
            try {
                downstream = server.accept();
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("proxy " + name + ": accept failed: " + e);
                }
                return;
            }
            accepted.incrementAndGet();
            if (refusing) {
                resetQuietly(downstream);
                continue;
            }
            Socket upstream;
            try {
                upstream = new Socket(InetAddress.getLoopbackAddress(), upstreamPort);
            } catch (IOException e) {
                resetQuietly(downstream); // the far side is down: the near side sees a reset, as without a proxy
                continue;
            }
            Link link = new Link(downstream, upstream);
            links.add(link);
            link.start();
        }
    }

    /** Waits while the link is black-holed. */
    private void passGate() throws InterruptedException {
        synchronized (gate) {
            while (holding && !closed) {
                gate.wait();
            }
        }
    }

    private static void resetQuietly(Socket socket) {
        try {
            socket.setSoLinger(true, 0);
            socket.close();
        } catch (IOException ignored) {
            // already gone
        }
    }

    /** One proxied connection: two sockets and a pump thread each way. */
    private final class Link {
        private final Socket downstream;
        private final Socket upstream;
        private final java.util.concurrent.atomic.AtomicInteger openDirections =
                new java.util.concurrent.atomic.AtomicInteger(2);

        Link(Socket downstream, Socket upstream) {
            this.downstream = downstream;
            this.upstream = upstream;
        }

        void start() {
            pump(downstream, upstream, "up");
            pump(upstream, downstream, "down");
        }

        private void pump(Socket from, Socket to, String direction) {
            Thread t = new Thread(
                    () -> {
                        byte[] buffer = new byte[16 * 1024];
                        try {
                            InputStream in = from.getInputStream();
                            OutputStream out = to.getOutputStream();
                            while (true) {
                                passGate();
                                int n = in.read(buffer);
                                if (n < 0) {
                                    halfClose(to);
                                    return;
                                }
                                passGate();
                                out.write(buffer, 0, n);
                                out.flush();
                            }
                        } catch (IOException e) {
                            reset(); // reset, or closed under us by a cut: the link is over
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            reset();
                        }
                    },
                    "proxy-" + name + "-" + direction);
            t.setDaemon(true);
            t.start();
        }

        /** A clean end of one direction (FIN), passed on; the link closes when both directions ended. */
        private void halfClose(Socket to) throws IOException {
            to.shutdownOutput();
            if (openDirections.decrementAndGet() == 0 && links.remove(this)) {
                downstream.close();
                upstream.close();
            }
        }

        void reset() {
            if (links.remove(this)) {
                resetQuietly(downstream);
                resetQuietly(upstream);
            }
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        blackHole(false);
        cutAll();
    }
}
