package org.edgebridge.broker;

/** The broker's one outbound port: a message to a device's receipt topic (QoS 1, not retained). */
public interface DevicePublisher {
    /**
     * Hands a receipt to the broker for {@code clientId}: sent now if the device is connected, queued if it
     * has a persistent session, dropped if it has none.
     *
     * @return false if the broker could not take it now (not running, or its queues are full)
     */
    boolean publishReceipt(String clientId, byte[] json);
}
