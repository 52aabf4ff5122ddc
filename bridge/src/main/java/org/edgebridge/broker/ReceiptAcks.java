package org.edgebridge.broker;

import java.time.Instant;

/**
 * The broker's port for a device's MQTT PUBACK of its final receipt: the last step of a command's timeline
 * (docs/desk.md, "A command's timeline"). Called on the connection's event loop: must not block.
 */
@FunctionalInterface
public interface ReceiptAcks {
    /** Nothing is recorded. */
    ReceiptAcks NONE = (clientId, commandId, at) -> {};

    /** The device {@code clientId} acknowledged its final receipt of {@code commandId} at {@code at}. */
    void acked(String clientId, String commandId, Instant at);
}
