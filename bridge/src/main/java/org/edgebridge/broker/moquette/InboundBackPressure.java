package org.edgebridge.broker.moquette;

import io.netty.channel.Channel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * Moquette 0.17 bug answered: every PUBLISH waits for the interceptor thread in an unbounded queue, after its PUBACK,
 * so a fast device can fill the heap. With {@code mqtt.pubackAfterCommit} (the default) commands skip that queue and
 * wait in the intake's own instead, which is counted here too ({@code waiting}). Proven by {@code
 * InboundBackPressureTest} and {@code InboundBackPressureIT} (devices faster than the intake are slowed by TCP, in a
 * 256 MB heap).
 *
 * <p>Bounds what waits in front of the intake. Moquette 0.17 hands every PUBLISH through its session loops to its
 * interceptor thread through an unbounded queue, after its PUBACK; if devices publish faster than the intake takes
 * commands, that queue (and the payload buffers it holds) grows without limit. So when {@code highWater} or more
 * commands wait there (in the session-loop queues and the interceptor queue), a device connection that brings
 * another PUBLISH stops being read (TCP back-pressure: the device's own sends block) until at most
 * {@code highWater / 2} wait. Nothing is dropped or refused; PINGREQs of a paused connection wait too, which is
 * harmless as long as the intake moves (it answers {@code retry_later} itself when the outbox cannot keep up).
 *
 * <p>Thread-safe: {@link #published} runs on a connection's event loop, and a paused connection checks again on its
 * own event loop every {@value #CHECK_MILLIS} ms.
 */
final class InboundBackPressure {
    static final long CHECK_MILLIS = 2;

    private final IntSupplier waiting;
    private final int highWater;
    private final int lowWater;
    private final AtomicLong pauses = new AtomicLong();
    private final AtomicInteger mostWaiting = new AtomicInteger();

    /**
     * @param waiting how many commands wait in front of the intake writer now: in the broker and in the intake's queue
     */
    InboundBackPressure(IntSupplier waiting, int highWater) {
        this.waiting = waiting;
        this.highWater = highWater;
        this.lowWater = Math.max(0, highWater / 2);
    }

    /** A PUBLISH of this connection is on its way to the intake: pause reading it if too many wait already. */
    void published(Channel channel) {
        int now = waiting.getAsInt();
        mostWaiting.accumulateAndGet(now, Math::max);
        // a connection whose reading ConnectGate holds until its CONNECT is taken is left to the gate
        boolean read = channel.config().isAutoRead() || ReadPauses.any(channel);
        if (read && now >= highWater && ReadPauses.pause(channel, ReadPauses.BACKLOG)) {
            pauses.incrementAndGet();
            channel.eventLoop().schedule(() -> resumeWhenDrained(channel), CHECK_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** How many times a connection was paused. */
    long pauses() {
        return pauses.get();
    }

    /** The most PUBLISHes seen waiting for the intake thread when a PUBLISH arrived. */
    int mostWaiting() {
        return mostWaiting.get();
    }

    /** PUBLISHes waiting for the intake thread now. */
    int waiting() {
        return waiting.getAsInt();
    }

    private void resumeWhenDrained(Channel channel) {
        if (!channel.isActive()) {
            return;
        }
        if (waiting.getAsInt() <= lowWater) {
            ReadPauses.resume(channel, ReadPauses.BACKLOG);
        } else {
            channel.eventLoop().schedule(() -> resumeWhenDrained(channel), CHECK_MILLIS, TimeUnit.MILLISECONDS);
        }
    }
}
