package org.edgebridge.broker;

import java.util.Collection;
import java.util.List;

/** What the admin side reads of the broker, and the one thing it does (acknowledge a store reset). */
public interface BrokerView {
    boolean isRunning();

    BrokerStatus status();

    /** Client ids whose takeovers in the last minute reached {@code mqtt.takeoverAlarmPerMinute}. */
    List<DeviceView> takeoverStorms();

    DeviceRegistry devices();

    Collection<String> connectedClientIds();

    /** Stores set aside because the broker could not start on them (the {@code broker_store_reset} alarm). */
    BrokerStoreResets storeResets();

    /** Client ids that need their client certificate on every listener. */
    CertificateDevices certificateDevices();
}
