package org.edgebridge.broker;

import io.moquette.broker.MoquetteInternals;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * Holds a client's packets after its CONNECT until Moquette has really accepted the connection, then passes
 * them on in order. Without it, Moquette 0.17 closes a connection whose SUBSCRIBE arrives in the instant
 * between its CONNACK and its own "connected" flag (see {@link MoquetteInternals}).
 *
 * <p>One instance per channel; every method runs on the channel's event loop.
 */
final class ConnectGate extends ChannelDuplexHandler {
    private static final long POLL_MICROS = 200;
    private static final long GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(10);

    private enum State { AWAIT_CONNECT, CONNECTING, OPEN }

    private State state = State.AWAIT_CONNECT;
    private final ArrayDeque<Object> held = new ArrayDeque<>();
    private long connectAt;
    private boolean polling;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        switch (state) {
            case OPEN -> ctx.fireChannelRead(msg);
            case AWAIT_CONNECT -> {
                state = State.CONNECTING;
                connectAt = System.nanoTime();
                ctx.fireChannelRead(msg);
            }
            case CONNECTING -> {
                if (held.isEmpty() && MoquetteInternals.isConnected(ctx.channel())) {
                    state = State.OPEN;
                    ctx.fireChannelRead(msg);
                } else {
                    held.add(msg);
                    poll(ctx);
                }
            }
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (held.isEmpty()) {
            ctx.fireChannelReadComplete();
        }
    }

    private void poll(ChannelHandlerContext ctx) {
        if (polling) {
            return;
        }
        polling = true;
        ctx.executor().schedule(() -> {
            polling = false;
            if (!ctx.channel().isActive()) {
                releaseHeld();
            } else if (MoquetteInternals.isConnected(ctx.channel())) {
                state = State.OPEN;
                while (!held.isEmpty()) {
                    ctx.fireChannelRead(held.poll());
                }
                ctx.fireChannelReadComplete();
            } else if (System.nanoTime() - connectAt > GIVE_UP_NANOS) {
                releaseHeld();
                ctx.close();
            } else {
                poll(ctx);
            }
        }, POLL_MICROS, TimeUnit.MICROSECONDS);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        releaseHeld();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releaseHeld();
    }

    private void releaseHeld() {
        while (!held.isEmpty()) {
            ReferenceCountUtil.release(held.poll());
        }
    }
}
