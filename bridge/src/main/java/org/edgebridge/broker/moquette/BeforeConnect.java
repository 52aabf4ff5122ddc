package org.edgebridge.broker.moquette;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.edgebridge.broker.BrokerLimits;
import org.edgebridge.broker.ProtocolViolations;
import org.jspecify.annotations.Nullable;

/**
 * Netty's {@code MqttDecoder} (as Moquette 0.17 sets it up) buffers a whole packet of up to {@code mqtt.maxPacketBytes}
 * before anyone can look at it, and the idle timer before CONNECT restarts with every byte. So 700 connections that
 * each declared a 520 KB PUBLISH before any CONNECT and then trickled bytes drove a bridge at -Xmx256m out of direct
 * memory. Proven by {@code BeforeLoginLimitsIT}.
 *
 * <p>Sits in front of the decoder, on the raw bytes, until the client's CONNECT has arrived whole:
 * <ul>
 *   <li>the first packet must be a CONNECT: anything else closes the connection at its first byte;</li>
 *   <li>it may be at most {@code mqtt.maxConnectBytes} long: a larger one closes the connection as soon as its
 *       length is read;</li>
 *   <li>it must have arrived whole within {@code mqtt.connectTimeout} of the TCP connect (the TLS handshake
 *       included), however slowly the bytes come.</li>
 * </ul>
 * Then it removes itself; the decoder has seen the same bytes. One instance per channel, on its event loop.
 */
final class BeforeConnect extends ChannelInboundHandlerAdapter {
    private static final int CONNECT_HEADER = 0x10;

    private final int maxConnectBytes;
    private final Duration timeout;
    private final ProtocolViolations violations;
    private final BrokerLimits limits;
    private @Nullable ScheduledFuture<?> deadline;
    private int headerBytes;
    private int length;
    private int multiplier = 1;
    private boolean lengthKnown;
    /** Bytes of the CONNECT still to come, once its length is known. */
    private long remaining;

    BeforeConnect(int maxConnectBytes, Duration timeout, ProtocolViolations violations, BrokerLimits limits) {
        this.maxConnectBytes = maxConnectBytes;
        this.timeout = timeout;
        this.violations = violations;
        this.limits = limits;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        deadline = ctx.executor()
                .schedule(
                        () -> {
                            limits.connectTimedOut();
                            violations.record(
                                    "no whole CONNECT within mqtt.connectTimeout",
                                    ctx.channel().remoteAddress());
                            ctx.close();
                        },
                        timeout.toMillis(),
                        TimeUnit.MILLISECONDS);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (deadline != null) {
            deadline.cancel(false);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf buf)) {
            ctx.fireChannelRead(msg);
            return;
        }
        int i = buf.readerIndex();
        int end = buf.writerIndex();
        while (!lengthKnown && i < end) {
            int b = buf.getByte(i++) & 0xff;
            if (headerBytes++ == 0) {
                if (b != CONNECT_HEADER) {
                    limits.packetBeforeConnect();
                    close(ctx, buf, "a packet before CONNECT");
                    return;
                }
                continue;
            }
            length += (b & 0x7f) * multiplier;
            multiplier *= 128;
            if (length > maxConnectBytes) {
                limits.connectTooLarge();
                close(ctx, buf, "a CONNECT larger than mqtt.maxConnectBytes (" + maxConnectBytes + " bytes)");
                return;
            }
            if ((b & 0x80) == 0) {
                lengthKnown = true;
                remaining = length;
            } else if (headerBytes == 5) {
                close(ctx, buf, "a malformed packet length");
                return;
            }
        }
        if (lengthKnown) {
            remaining -= end - i;
        }
        ctx.fireChannelRead(buf);
        if (lengthKnown && remaining <= 0 && !ctx.isRemoved()) {
            ctx.pipeline().remove(this);
        }
    }

    private void close(ChannelHandlerContext ctx, ByteBuf buf, String what) {
        ReferenceCountUtil.release(buf);
        violations.record(what, ctx.channel().remoteAddress());
        ctx.close();
    }
}
