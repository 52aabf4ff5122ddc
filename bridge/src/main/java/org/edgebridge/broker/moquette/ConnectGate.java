package org.edgebridge.broker.moquette;

import io.moquette.broker.MoquetteInternals;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttConnectPayload;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.edgebridge.broker.BrokerLimits;
import org.edgebridge.broker.DeviceLogin;
import org.edgebridge.broker.ProtocolViolations;
import org.edgebridge.worker.FatalErrors;
import org.jspecify.annotations.Nullable;

/**
 * Moquette 0.17 bugs answered: a SUBSCRIBE that arrives between the CONNACK and Moquette's own "connected" flag
 * closes the connection (13 of 300 connect+subscribe cycles before this gate, 0 of 300 after; measured by hand, no
 * test provokes the race on purpose, but every integration test subscribes right after CONNECT); a second CONNECT
 * on one connection is taken without any check (Moquette #969; {@code DeviceLoginIT}); a malformed or oversized packet
 * logs a stack trace per connection ({@code SecurityIT}'s flood of 2,000 of them); a Last Will is published without
 * asking the ACL, so the gate owns it ({@code DeviceLoginIT}, the will test); a retained PUBLISH is kept in the store
 * for ever, so the gate takes every PUBLISH without its retain flag ({@code RetainedPublishesIT}); a topic has no
 * length limit and every receipt repeats it, so a PUBLISH on a topic over {@code mqtt.maxTopicBytes} closes the
 * connection ({@code ReceiptQueueBoundsIT}); packets that come with the CONNECT, before Moquette has taken it, are
 * held, at most {@code mqtt.maxHeldPackets} of them, and nothing more is read until then ({@code HeldPacketsIT}).
 *
 * <p>Holds a client's packets after its CONNECT until Moquette has really accepted the connection, then passes
 * them on in order. Without it, Moquette 0.17 closes a connection whose SUBSCRIBE arrives in the instant
 * between its CONNACK and its own "connected" flag (see {@link MoquetteInternals}). The CONNECT itself is first
 * checked by the {@link ConnectPolicy} and then by {@link DeviceLogin} (whose password checks run on their own
 * threads; the gate waits for the answer without blocking the event loop); a refused one is answered with its
 * CONNACK code and closed.
 *
 * <p>It also owns the connection's Last Will: when a connection that Moquette had accepted ends without a
 * DISCONNECT (and not because the bridge is stopping), the will goes to {@code willSink}.
 *
 * <p>One instance per channel; every method runs on the channel's event loop.
 */
final class ConnectGate extends ChannelDuplexHandler {
    private static final long POLL_MICROS = 200;
    private static final long GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(10);

    private enum State {
        AWAIT_CONNECT,
        AUTHENTICATING,
        CONNECTING,
        OPEN
    }

    /** Held in place of a packet: close the connection when the held packets are released. */
    private static final Object CLOSE = new Object();

    private final ConnectPolicy policy;
    private final DeviceLogin login;
    private final ProtocolViolations violations;
    private final Consumer<ConnectPolicy.LastWill> willSink;
    private final BooleanSupplier stopping;
    private final InboundBackPressure backPressure;
    private final BrokerLimits limits;
    private final int maxTopicBytes;
    private final int maxHeldPackets;
    /** Told when the connection's CONNECT was accepted: it leaves the lane of those that have not logged in. */
    private final Consumer<Channel> onLogin;

    private State state = State.AWAIT_CONNECT;
    private final ArrayDeque<Object> held = new ArrayDeque<>();
    private long connectAt;
    private boolean polling;
    private ConnectPolicy.@Nullable LastWill will;
    private boolean disconnected;
    /** The connection was refused and is being closed: nothing more is looked at or counted. */
    private boolean rejected;

    /**
     * @param willSink gets the will of a connection that broke; called on the event loop, must not block
     * @param stopping true while the bridge closes its connections itself: no will is sent then
     */
    ConnectGate(
            ConnectPolicy policy,
            DeviceLogin login,
            ProtocolViolations violations,
            Consumer<ConnectPolicy.LastWill> willSink,
            BooleanSupplier stopping,
            InboundBackPressure backPressure,
            BrokerLimits limits,
            int maxTopicBytes,
            int maxHeldPackets,
            Consumer<Channel> onLogin) {
        this.maxHeldPackets = maxHeldPackets;
        this.onLogin = onLogin;
        this.backPressure = backPressure;
        this.limits = limits;
        this.maxTopicBytes = maxTopicBytes;
        this.policy = policy;
        this.login = login;
        this.violations = violations;
        this.willSink = willSink;
        this.stopping = stopping;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (rejected) {
            ReferenceCountUtil.release(msg); // the rest of what the decoder had read of a connection being closed
            return;
        }
        if (msg instanceof MqttMessage m && m.decoderResult().isFailure()) {
            String what = "malformed or oversized packet ("
                    + m.decoderResult().cause().getMessage() + ")";
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
        if (state != State.AWAIT_CONNECT && msg instanceof MqttConnectMessage) {
            // MQTT 3.1.1 §3.1.0-2: a second CONNECT is a protocol violation. Passed on, Moquette 0.17 would take it
            // without the checks above (client id, credentials, will): close instead.
            reject(ctx, msg, "a second CONNECT on one connection");
            return;
        }
        if (state == State.AWAIT_CONNECT && !(msg instanceof MqttConnectMessage)) {
            reject(ctx, msg, "a packet before CONNECT");
            return;
        }
        if (msg instanceof MqttMessage m && m.fixedHeader().messageType() == MqttMessageType.DISCONNECT) {
            disconnected = true; // a clean DISCONNECT: MQTT 3.1.1 §3.14.4 discards the will
        }
        if (msg instanceof MqttPublishMessage publish) {
            if (ByteBufUtil.utf8Bytes(publish.variableHeader().topicName()) > maxTopicBytes) {
                // every receipt repeats the topic: 2,500 one-byte publishes on a 60 KB topic queued 144 MB of them
                limits.topicTooLong();
                reject(ctx, msg, "a topic longer than mqtt.maxTopicBytes (" + maxTopicBytes + " bytes)");
                return;
            }
            backPressure.published(ctx.channel());
            if (publish.fixedHeader().isRetain()) {
                // Moquette 0.17 would keep it in its store for ever; the bridge has no use for retained messages
                limits.retainFlagCleared();
                msg = withoutRetain(publish);
            }
        }
        switch (state) {
            case OPEN -> ctx.fireChannelRead(msg);
            case AWAIT_CONNECT -> {
                state = State.AUTHENTICATING;
                // read nothing more until the credentials are checked: a client cannot pile up packets meanwhile
                ctx.channel().config().setAutoRead(false);
                connectAt = System.nanoTime();
                MqttConnectMessage connect = (MqttConnectMessage) msg;
                ConnectPolicy.Verdict verdict = policy.check(ctx.channel(), connect);
                if (verdict.refuse() != null) {
                    refuse(ctx, verdict.refuse());
                    return;
                }
                MqttConnectPayload p = connect.payload();
                String address = ctx.channel().remoteAddress() instanceof InetSocketAddress a
                        ? a.getAddress().getHostAddress()
                        : String.valueOf(ctx.channel().remoteAddress());
                login.check(p.clientIdentifier(), p.userName(), p.passwordInBytes(), verdict.certified(), address)
                        .thenAccept(result -> ctx.executor().execute(() -> loggedIn(ctx, verdict, result)));
            }
            case AUTHENTICATING -> {
                if (!roomToHold()) {
                    reject(ctx, msg, heldTooMany());
                    return;
                }
                held.add(msg);
            }
            case CONNECTING -> {
                if (held.contains(CLOSE)) {
                    ReferenceCountUtil.release(msg);
                } else if (held.isEmpty() && MoquetteInternals.isConnected(ctx.channel())) {
                    open(ctx);
                    ctx.fireChannelRead(msg);
                } else if (!roomToHold()) {
                    // let Moquette finish the CONNECT first, as for a malformed packet
                    ReferenceCountUtil.release(msg);
                    releaseHeld();
                    violations.record(heldTooMany(), ctx.channel().remoteAddress());
                    held.add(CLOSE);
                    poll(ctx);
                } else {
                    held.add(msg);
                    poll(ctx);
                }
            }
        }
    }

    /** On the event loop, once {@link DeviceLogin} has answered. */
    private void loggedIn(ChannelHandlerContext ctx, ConnectPolicy.Verdict verdict, DeviceLogin.Result result) {
        if (state != State.AUTHENTICATING || !ctx.channel().isActive()) {
            releaseHeld();
            return;
        }
        MqttConnectReturnCode refusal = switch (result) {
            case ACCEPTED -> null;
            case BAD_CREDENTIALS -> MqttConnectReturnCode.CONNECTION_REFUSED_BAD_USER_NAME_OR_PASSWORD;
            case THROTTLED, BUSY -> MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE;
        };
        if (refusal != null) {
            releaseHeld();
            refuse(ctx, refusal);
            return;
        }
        state = State.CONNECTING;
        onLogin.accept(ctx.channel());
        // still nothing read until Moquette has taken the CONNECT ({@link #open}): only what the decoder had already
        // read can be held, at most mqtt.maxHeldPackets of it
        will = verdict.will();
        ctx.fireChannelRead(verdict.connect());
        ctx.fireChannelReadComplete();
        poll(ctx); // until Moquette has taken the CONNECT: then the held packets pass and the connection is read again
    }

    /** Moquette has taken the CONNECT: packets pass from now on, and the connection is read again. */
    private void open(ChannelHandlerContext ctx) {
        state = State.OPEN;
        ctx.channel().config().setAutoRead(true);
    }

    /**
     * Whether one more packet may be held before Moquette has taken the CONNECT: at most {@code mqtt.maxHeldPackets}
     * (the bytes are bounded by reading nothing meanwhile: only what one read brought in can be held). Counts a
     * refusal.
     */
    private boolean roomToHold() {
        if (held.size() < maxHeldPackets) {
            return true;
        }
        limits.heldTooMany();
        return false;
    }

    private String heldTooMany() {
        return "more than mqtt.maxHeldPackets (" + maxHeldPackets + ") packets before its CONNECT was taken";
    }

    /** The same PUBLISH (same payload buffer, owned by the copy) with retain=0. */
    private static MqttPublishMessage withoutRetain(MqttPublishMessage m) {
        MqttFixedHeader h = m.fixedHeader();
        return new MqttPublishMessage(
                new MqttFixedHeader(h.messageType(), h.isDup(), h.qosLevel(), false, h.remainingLength()),
                m.variableHeader(),
                m.payload());
    }

    private static void refuse(ChannelHandlerContext ctx, MqttConnectReturnCode code) {
        ctx.writeAndFlush(MqttMessageBuilders.connAck()
                        .returnCode(code)
                        .sessionPresent(false)
                        .build())
                .addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (held.isEmpty()) {
            ctx.fireChannelReadComplete();
        }
    }

    private void reject(ChannelHandlerContext ctx, Object msg, String what) {
        rejected = true;
        ReferenceCountUtil.release(msg);
        releaseHeld();
        violations.record(what, ctx.channel().remoteAddress());
        ctx.close();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        FatalErrors.haltIfFatal(Thread.currentThread(), cause); // an OutOfMemoryError in a handler ends the process
        violations.record(
                "a connection error (" + cause.getClass().getSimpleName() + ")",
                ctx.channel().remoteAddress());
        ctx.close();
    }

    private void poll(ChannelHandlerContext ctx) {
        if (polling) {
            return;
        }
        polling = true;
        ctx.executor()
                .schedule(
                        () -> {
                            polling = false;
                            if (!ctx.channel().isActive()) {
                                releaseHeld();
                            } else if (MoquetteInternals.isConnected(ctx.channel())) {
                                open(ctx);
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
                        },
                        POLL_MICROS,
                        TimeUnit.MICROSECONDS);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        releaseHeld();
        // Runs before Moquette's handler sees the close, so "connected" still tells whether Moquette took the CONNECT.
        ConnectPolicy.LastWill w = will;
        will = null;
        if (w != null
                && !disconnected
                && (state == State.OPEN || MoquetteInternals.isConnected(ctx.channel()))
                && !stopping.getAsBoolean()) {
            willSink.accept(w);
        }
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
