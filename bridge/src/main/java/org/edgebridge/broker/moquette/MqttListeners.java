package org.edgebridge.broker.moquette;

import io.moquette.broker.MoquetteInternals;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultithreadEventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.edgebridge.broker.BrokerSettings;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moquette 0.17 limit answered: its Netty pipeline is built in a package-private class with no extension point, so the
 * bridge binds the listeners itself and puts its own handlers ({@link ConnectGate}, {@link SessionSubscriptionCheck},
 * {@link PubackAfterCommit}) in front of Moquette's protocol handler. Proven by every integration test that connects a
 * device, and by {@code BusyPortIT} (a port that cannot be bound names its key).
 *
 * <p>The MQTT listeners (plain and TLS) in front of Moquette's protocol handler. Built like Moquette 0.17 builds
 * its own (same handler names, which Moquette looks up after CONNECT), plus {@link ConnectionLimits},
 * {@link BeforeConnect}, a {@link ConnectGate} and (with {@code mqtt.pubackAfterCommit}) {@link PubackAfterCommit}, and
 * {@link PipelineTail} last.
 *
 * <p>Threads: "mqtt-accept" and {@code mqtt.ioThreads} of "mqtt-io-N", owned here, on the JDK's NIO selector;
 * {@link #close()} shuts them down.
 */
final class MqttListeners implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MqttListeners.class);

    private final EventLoopGroup acceptors = new NioEventLoopGroup(1, new DefaultThreadFactory("mqtt-accept"));
    private final MultithreadEventLoopGroup workers;
    private final List<Channel> bound = new ArrayList<>();

    /** @param ioThreads {@code mqtt.ioThreads}; 0: Netty's default, 2 x the cores */
    MqttListeners(int ioThreads) {
        workers = new NioEventLoopGroup(ioThreads, new DefaultThreadFactory("mqtt-io"));
        LOG.info("MQTT listeners: {} I/O thread(s) (mqtt.ioThreads={})", ioThreads(), ioThreads);
    }

    /** The I/O threads the listeners have: {@code mqtt.ioThreads}, or Netty's default for 0. */
    int ioThreads() {
        return workers.executorCount();
    }

    /**
     * What each connection's pipeline is made of.
     *
     * @param protocol Moquette's protocol handler, shared
     * @param connections counts connections and refuses those past the limits, before anything is built for them
     * @param beforeConnect a new {@link BeforeConnect} per connection
     * @param connectGate a new {@link ConnectGate} per connection
     * @param sessionCheck a new {@link SessionSubscriptionCheck} per connection
     * @param receiptAcks a new {@link FinalReceiptAcks} per connection
     * @param commands a new {@link PubackAfterCommit} per connection, or null to leave every PUBLISH to Moquette
     * @param connectTimeoutSeconds idle time before CONNECT that closes the connection (Moquette then sets keep-alive x
     *     1.5)
     */
    record Pipeline(
            ChannelHandler protocol,
            ConnectionLimits connections,
            Supplier<ChannelHandler> beforeConnect,
            Supplier<ChannelHandler> connectGate,
            Supplier<ChannelHandler> sessionCheck,
            Supplier<ChannelHandler> receiptAcks,
            @Nullable Supplier<ChannelHandler> commands,
            int maxPacketBytes,
            int connectTimeoutSeconds) {}

    /**
     * Binds one listener.
     *
     * @param port the port, or {@link BrokerSettings#ANY_PORT} for any free one
     * @param ssl null for plain MQTT
     * @param key the config key of the port, for the error message
     * @return the port it bound
     */
    int bind(String host, int port, @Nullable SslContext ssl, Pipeline p, String key) {
        ServerBootstrap b = new ServerBootstrap()
                .group(acceptors, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (!p.connections().admit(ch)) {
                            ch.close(); // one too many: nothing is built for it
                            return;
                        }
                        if (ssl != null) {
                            ch.pipeline().addLast("ssl", ssl.newHandler(ch.alloc()));
                        }
                        ch.pipeline().addLast("beforeConnect", p.beforeConnect().get());
                        ch.pipeline()
                                .addLast("idleStateHandler", new IdleStateHandler(p.connectTimeoutSeconds(), 0, 0));
                        ch.pipeline().addLast("idleEventHandler", MoquetteInternals.idleTimeoutHandler());
                        ch.pipeline().addLast("decoder", new MqttDecoder(p.maxPacketBytes()));
                        ch.pipeline().addLast("encoder", MqttEncoder.INSTANCE);
                        ch.pipeline().addLast("connectGate", p.connectGate().get());
                        ch.pipeline().addLast("sessionCheck", p.sessionCheck().get());
                        ch.pipeline()
                                .addLast("finalReceiptAcks", p.receiptAcks().get());
                        Supplier<ChannelHandler> commands = p.commands();
                        if (commands != null) {
                            ch.pipeline().addLast("commands", commands.get());
                        }
                        ch.pipeline().addLast("handler", p.protocol());
                        ch.pipeline().addLast("fatalErrors", PipelineTail.INSTANCE);
                    }
                });
        Channel channel;
        try {
            channel = b.bind(host, port == BrokerSettings.ANY_PORT ? 0 : port)
                    .syncUninterruptibly()
                    .channel();
        } catch (Exception e) { // Netty rethrows the checked BindException as it is, not wrapped
            String asked = port == BrokerSettings.ANY_PORT ? "any" : String.valueOf(port);
            throw new IllegalStateException(
                    key + "=" + asked + ": cannot listen on " + host + ":" + asked + " (" + e.getMessage()
                            + "); is another broker or bridge running?",
                    e);
        }
        bound.add(channel);
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    /** Stops accepting connections; open ones stay until {@link #close()}. */
    void stopAccepting() {
        for (Channel c : bound) {
            c.close().syncUninterruptibly();
        }
    }

    @Override
    public void close() {
        stopAccepting();
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        acceptors.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** Whether a listener on {@code host}:{@code port} accepts a connection now (a wildcard host: on loopback). */
    static boolean accepts(String host, int port) {
        String to = host.equals("0.0.0.0") || host.equals("::") ? "127.0.0.1" : host;
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(to, port), 2_000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
