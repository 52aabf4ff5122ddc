package org.edgebridge.broker.moquette;

import io.moquette.broker.NettyUtils;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import org.edgebridge.broker.BrokerLimits;
import org.edgebridge.broker.InboundCommands;
import org.edgebridge.broker.InboundPublish;
import org.edgebridge.broker.Topics;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moquette 0.17 limit answered: it PUBACKs a QoS 1 PUBLISH when it arrives, before its interceptor (and so the
 * intake) has even seen it, and offers no way to send the PUBACK later; a PUBACK meant nothing a device could rely on
 * (devices that trusted it lost commands at a {@code kill -9}: docs/BENCHMARKS.md). Proven by
 * {@code PubackAfterCommitIT} (devices that trust the PUBACK and never resend, the bridge killed with {@code kill -9}
 * mid-stream: every PUBACKed command is in the outbox) and {@code CrashWindowIT} ({@code BEFORE_INTAKE_COMMIT}: no
 * PUBACK before the commit).
 *
 * <p>Takes a device's commands before Moquette: a QoS 1 PUBLISH on the connected device's own command topic (the
 * ACL's one allowed topic, {@link Topics#commandType}) goes straight to the intake with an
 * {@link InboundCommands.Answer}, and its PUBACK is written when the intake answers (committed, or a receipt sent
 * that says why not). PUBACKs go out in the order the PUBLISHes came (MQTT 3.1.1 §4.6), even when a later one is
 * answered first. Everything else (QoS 0 and 2, other topics, which the ACL then refuses, every other packet) goes on
 * to Moquette as before. {@link ConnectGate}, in front, passes nothing before Moquette has taken the CONNECT (so the
 * client id is known here), and has already cleared a retain flag. A DUP flag changes nothing: the outbox knows a
 * resend by its commandId.
 *
 * <p>Bound: at most {@code maxAwaiting} commands of the connection, and {@code maxAwaitingBytes} of their payloads,
 * wait for their answer; at either it is not read ({@link ReadPauses#AWAITING_COMMIT}) until enough are answered, so a
 * device's burst is slowed by TCP to the speed of the disk, and one device's large commands cannot fill the intake's
 * queue ({@code intake.maxQueuedBytes}) that all devices share. A command larger than the byte bound is still taken
 * (the bound is checked after a command is added); nothing after it is read until enough are answered. What one read
 * of the socket had already decoded follows the command that paused it. A connection that closes first loses only its
 * PUBACKs: the intake still stores or answers what it took.
 *
 * <p>One instance per channel; its state is touched only on the channel's event loop (answers come back there).
 */
final class PubackAfterCommit extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(PubackAfterCommit.class);

    private final Topics topics;
    private final Clock clock;
    private final InboundCommands commands;
    private final BrokerLimits limits;
    private final int maxAwaiting;
    private final long maxAwaitingBytes;
    /** Payload bytes of {@link #awaiting}. */
    private long awaitingBytes;
    /** The connection's commands waiting for their answer, in arrival order (their PUBACKs go in this order). */
    private final ArrayDeque<Awaiting> awaiting = new ArrayDeque<>();

    /** A command waiting for its PUBACK. */
    private static final class Awaiting {
        final int packetId;
        final int bytes;
        boolean decided;

        Awaiting(int packetId, int bytes) {
            this.packetId = packetId;
            this.bytes = bytes;
        }
    }

    PubackAfterCommit(
            Topics topics,
            Clock clock,
            InboundCommands commands,
            BrokerLimits limits,
            int maxAwaiting,
            long maxAwaitingBytes) {
        this.topics = topics;
        this.clock = clock;
        this.commands = commands;
        this.limits = limits;
        this.maxAwaiting = maxAwaiting;
        this.maxAwaitingBytes = maxAwaitingBytes;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof MqttPublishMessage publish && publish.fixedHeader().qosLevel() == MqttQoS.AT_LEAST_ONCE) {
            @Nullable String clientId = NettyUtils.clientID(ctx.channel());
            String topic = publish.variableHeader().topicName();
            String type = clientId == null ? null : topics.commandType(clientId, topic);
            if (clientId != null && type != null) {
                take(ctx, publish, clientId, topic, type);
                return;
            }
        }
        ctx.fireChannelRead(msg);
    }

    private void take(
            ChannelHandlerContext ctx, MqttPublishMessage publish, String clientId, String topic, String type) {
        byte[] payload;
        try {
            payload = new byte[publish.payload().readableBytes()];
            publish.payload().getBytes(publish.payload().readerIndex(), payload);
        } finally {
            publish.release();
        }
        Awaiting command = new Awaiting(publish.variableHeader().packetId(), payload.length);
        awaiting.add(command);
        awaitingBytes += payload.length;
        limits.awaitingCommit(awaiting.size(), awaitingBytes);
        if (full() && ReadPauses.pause(ctx.channel(), ReadPauses.AWAITING_COMMIT)) {
            limits.awaitingCommitPaused();
        }
        try {
            commands.accept(
                    new InboundPublish(clientId, topic, type, payload, clock.instant()), new InboundCommands.Answer() {
                        @Override
                        public void decided() {
                            onLoop(ctx, () -> answered(ctx, command));
                        }

                        @Override
                        public void undecided() {
                            onLoop(ctx, ctx::close);
                        }
                    });
        } catch (RuntimeException e) {
            LOG.error(
                    "intake of a PUBLISH from {} failed; the connection is closed and the device sends it again",
                    clientId,
                    e);
            ctx.close();
        }
    }

    private static void onLoop(ChannelHandlerContext ctx, Runnable task) {
        if (ctx.executor().inEventLoop()) {
            task.run();
            return;
        }
        try {
            ctx.executor().execute(task);
        } catch (RejectedExecutionException e) {
            // the listeners are shutting down: the connection is gone, and its PUBACK with it
        }
    }

    /** A command was answered: the PUBACKs of the answered commands at the head go out, in order. */
    private void answered(ChannelHandlerContext ctx, Awaiting command) {
        command.decided = true;
        if (!ctx.channel().isActive()) {
            return;
        }
        boolean wrote = false;
        while (!awaiting.isEmpty() && awaiting.peek().decided) {
            Awaiting head = awaiting.poll();
            awaitingBytes -= head.bytes;
            ctx.write(puback(head.packetId), ctx.voidPromise());
            wrote = true;
        }
        if (wrote) {
            ctx.flush();
        }
        if (!full()) {
            ReadPauses.resume(ctx.channel(), ReadPauses.AWAITING_COMMIT);
        }
    }

    /** At either bound: the connection is not read. */
    private boolean full() {
        return awaiting.size() >= maxAwaiting || awaitingBytes >= maxAwaitingBytes;
    }

    private static MqttMessage puback(int packetId) {
        return new MqttMessage(
                new MqttFixedHeader(MqttMessageType.PUBACK, false, MqttQoS.AT_MOST_ONCE, false, 0),
                MqttMessageIdVariableHeader.from(packetId));
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        awaiting.clear(); // the intake still stores or answers them; their PUBACKs have nowhere to go
        awaitingBytes = 0;
        super.channelInactive(ctx);
    }
}
