package org.edgebridge.broker.moquette;

import io.netty.channel.Channel;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;

/**
 * Why a device connection is not read now. Two bounds stop reading a connection, each for its own reason
 * ({@link InboundBackPressure}: too many commands wait in front of the intake; {@link PubackAfterCommit}: too many of
 * this connection's commands wait for their commit); it is read again only once neither holds, so that one bound
 * cannot resume what the other paused. {@link ConnectGate}'s own pause before the CONNECT is taken is not one of them.
 *
 * <p>Only on the channel's event loop.
 */
final class ReadPauses {
    /** Too many commands wait in front of the intake, all devices together. */
    static final int BACKLOG = 1;
    /** Too many commands of this connection wait for their commit (their PUBACKs). */
    static final int AWAITING_COMMIT = 2;

    private static final AttributeKey<Integer> REASONS = AttributeKey.valueOf("edgebridge.readPauses");

    private ReadPauses() {}

    /** Stops reading the connection for {@code reason}. @return false if it was already paused for it */
    static boolean pause(Channel channel, int reason) {
        Attribute<Integer> reasons = channel.attr(REASONS);
        int now = reasons.get() == null ? 0 : reasons.get();
        if ((now & reason) != 0) {
            return false;
        }
        reasons.set(now | reason);
        channel.config().setAutoRead(false);
        return true;
    }

    /** Ends the pause for {@code reason}; the connection is read again if no other reason holds. */
    static void resume(Channel channel, int reason) {
        Attribute<Integer> reasons = channel.attr(REASONS);
        int now = reasons.get() == null ? 0 : reasons.get();
        if ((now & reason) == 0) {
            return;
        }
        int left = now & ~reason;
        reasons.set(left);
        if (left == 0) {
            channel.config().setAutoRead(true);
        }
    }

    /** Whether the connection is paused for {@code reason}. */
    static boolean holds(Channel channel, int reason) {
        Integer now = channel.attr(REASONS).get();
        return now != null && (now & reason) != 0;
    }

    /** Whether the connection is paused for any of these reasons. */
    static boolean any(Channel channel) {
        Integer now = channel.attr(REASONS).get();
        return now != null && now != 0;
    }
}
