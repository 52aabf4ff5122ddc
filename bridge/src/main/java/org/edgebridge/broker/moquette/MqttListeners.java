package org.edgebridge.broker.moquette;

import io.moquette.broker.MoquetteInternals;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.edgebridge.broker.BrokerSettings;

/**
 * Moquette 0.17 limit answered: its Netty pipeline is built in a package-private class with no extension point,
 * so the bridge binds the listeners itself and puts its own handlers ({@link ConnectGate},
 * {@link SessionSubscriptionCheck}) in front of Moquette's protocol handler. Proven by every integration test that
 * connects a device, and by {@code BusyPortIT} (a port that cannot be bound names its key).
 *
 * <p>The MQTT listeners (plain and TLS) in front of Moquette's protocol handler. Built like Moquette 0.17 builds
 * its own (same handler names, which Moquette looks up after CONNECT), plus a {@link ConnectGate}.
 *
 * <p>Threads: "mqtt-accept" and "mqtt-io-N", owned here; {@link #close()} shuts them down.
 */
final class MqttListeners implements AutoCloseable {
    /** Seconds a new connection may take to send CONNECT; Moquette then sets keep-alive × 1.5. */
    private static final int CONNECT_TIMEOUT_SECONDS = 10;

    private final EventLoopGroup acceptors = new NioEventLoopGroup(1, new DefaultThreadFactory("mqtt-accept"));
    private final EventLoopGroup workers = new NioEventLoopGroup(0, new DefaultThreadFactory("mqtt-io"));
    private final List<Channel> bound = new ArrayList<>();

    /**
     * Binds one listener.
     *
     * @param port the port, or {@link BrokerSettings#ANY_PORT} for any free one
     * @param ssl null for plain MQTT
     * @param key the config key of the port, for the error message
     * @return the port it bound
     */
    int bind(String host, int port, SslContext ssl, ChannelHandler protocol, Supplier<ChannelHandler> connectGate,
            int maxPacketBytes, String key, Supplier<ChannelHandler> sessionCheck) {
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
                        if (ssl != null) {
                            ch.pipeline().addLast("ssl", ssl.newHandler(ch.alloc()));
                        }
                        ch.pipeline().addLast("idleStateHandler", new IdleStateHandler(CONNECT_TIMEOUT_SECONDS, 0, 0));
                        ch.pipeline().addLast("idleEventHandler", MoquetteInternals.idleTimeoutHandler());
                        ch.pipeline().addLast("decoder", new MqttDecoder(maxPacketBytes));
                        ch.pipeline().addLast("encoder", MqttEncoder.INSTANCE);
                        ch.pipeline().addLast("connectGate", connectGate.get());
                        ch.pipeline().addLast("sessionCheck", sessionCheck.get());
                        ch.pipeline().addLast("handler", protocol);
                    }
                });
        Channel channel;
        try {
            channel = b.bind(host, port == BrokerSettings.ANY_PORT ? 0 : port).syncUninterruptibly().channel();
        } catch (Exception e) { // Netty rethrows the checked BindException as it is, not wrapped
            String asked = port == BrokerSettings.ANY_PORT ? "any" : String.valueOf(port);
            throw new IllegalStateException(key + "=" + asked + ": cannot listen on " + host + ":" + asked + " (" + e.getMessage()
                    + "); is another broker or bridge running?", e);
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
}
