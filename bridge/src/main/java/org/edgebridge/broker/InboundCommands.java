package org.edgebridge.broker;

/**
 * The broker's one inbound port: each PUBLISH a device makes on one of its own command topics, handed to the bridge.
 *
 * <p>Two ways in. {@link #accept(InboundPublish)}: Moquette's interceptor thread, in broker-wide arrival order, after
 * Moquette has already PUBACKed the PUBLISH (a Last Will, and every command with {@code mqtt.pubackAfterCommit=false}).
 * {@link #accept(InboundPublish, Answer)}: the connection's event loop, before any PUBACK; the broker PUBACKs when the
 * bridge calls {@link Answer#decided()} (docs/protocol.md §2: a PUBACK means the command is stored, or its receipt
 * says why not). Each device's commands come in its publish order either way (one connection, one event loop).
 */
@FunctionalInterface
public interface InboundCommands {
    /** Must not block for long: every device's next command waits for it. */
    void accept(InboundPublish publish);

    /**
     * Takes a command whose PUBACK waits for {@code answer}. Must not block (it runs on a network thread) and must
     * not read the outbox there. {@code answer} is called exactly once, on any thread. The default, for ports that
     * keep no command (tests), answers at once.
     */
    default void accept(InboundPublish publish, Answer answer) {
        accept(publish);
        answer.decided();
    }

    /** Commands taken and waiting to be written or answered now, for the broker's back-pressure. O(1), thread-safe. */
    default int waiting() {
        return 0;
    }

    /** What the bridge did with a command whose PUBACK waits; exactly one of the two is called, once. */
    interface Answer {
        /**
         * The command is in the outbox (committed: stored now or before), or a receipt that says why not was handed
         * out (rejected, retry_later): the PUBACK may go.
         */
        void decided();

        /**
         * Nothing was decided (the intake failed on it or stopped before it): no PUBACK; the connection is closed so
         * that the device sends it again.
         */
        void undecided();
    }
}
