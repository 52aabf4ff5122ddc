package org.edgebridge.broker;

import io.moquette.broker.MoquetteInternals;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * Holds a client's packets after its CONNECT until Moquette has really accepted the connection, then passes
 * them on in order. Without it, Moquette 0.17 closes a connection whose SUBSCRIBE arrives in the instant
 * between its CONNACK and its own "connected" flag (see {@link MoquetteInternals}). The CONNECT itself is first
 * checked by the {@link ConnectPolicy}; a refused one is answered with its CONNACK code and closed.
 *
 * <p>One instance per channel; every method runs on the channel's event loop.
 */
final class ConnectGate extends ChannelDuplexHandler {
    private static final long POLL_MICROS = 200;
    private static final long GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(10);

    private enum State { AWAIT_CONNECT, CONNECTING, OPEN }

    /** Held in place of a packet: close the connection when the held packets are released. */
    private static final Object CLOSE = new Object();

    private final ConnectPolicy policy;
    private final ProtocolViolations violations;
    private State state = State.AWAIT_CONNECT;
    private final ArrayDeque<Object> held = new ArrayDeque<>();
    private long connectAt;
    private boolean polling;

    ConnectGate(ConnectPolicy policy, ProtocolViolations violations) {
        this.policy = policy;
        this.violations = violations;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof MqttMessage m && m.decoderResult().isFailure()) {
            String what = "malformed or oversized packet (" + m.decoderResult().cause().getMessage() + ")";
            if (state == State.CONNECTING) {
                // let Moquette finish the CONNECT first: closing under it makes 0.17 log a corrupted session
                ReferenceCountUtil.release(msg);
                violations.record(what, ctx.channel().remoteAddress());
                held.add(CLOSE);
                poll(ctx);
            } else {
                reject(ctx, msg, what);
            }
            return;
        }
        if (state == State.AWAIT_CONNECT && !(msg instanceof MqttConnectMessage)) {
            reject(ctx, msg, "a packet before CONNECT");
            return;
        }
        switch (state) {
            case OPEN -> ctx.fireChannelRead(msg);
            case AWAIT_CONNECT -> {
                state = State.CONNECTING;
                connectAt = System.nanoTime();
                ConnectPolicy.Verdict verdict = policy.check(ctx.channel(), (MqttConnectMessage) msg);
                if (verdict.refuse() != null) {
                    ctx.writeAndFlush(MqttMessageBuilders.connAck().returnCode(verdict.refuse()).sessionPresent(false).build())
                            .addListener(ChannelFutureListener.CLOSE);
                    return;
                }
                ctx.fireChannelRead(verdict.connect());
            }
            case CONNECTING -> {
                if (held.contains(CLOSE)) {
                    ReferenceCountUtil.release(msg);
                } else if (held.isEmpty() && MoquetteInternals.isConnected(ctx.channel())) {
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

    private void reject(ChannelHandlerContext ctx, Object msg, String what) {
        ReferenceCountUtil.release(msg);
        releaseHeld();
        violations.record(what, ctx.channel().remoteAddress());
        ctx.close();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        violations.record("a connection error (" + cause.getClass().getSimpleName() + ")", ctx.channel().remoteAddress());
        ctx.close();
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
                    Object next = held.poll();
                    if (next == CLOSE) {
                        releaseHeld();
                        ctx.close();
                        return;
                    }
                    ctx.fireChannelRead(next);
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
            Object next = held.poll();
            if (next != CLOSE) {
                ReferenceCountUtil.release(next);
            }
        }
    }
}
