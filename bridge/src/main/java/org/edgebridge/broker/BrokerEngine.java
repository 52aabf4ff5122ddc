package org.edgebridge.broker;

import java.time.Clock;
import java.util.Collection;
import java.util.function.Consumer;

/**
 * The MQTT server that {@link Broker} runs: Moquette 0.17 and its workarounds, in {@code
 * org.edgebridge.broker.moquette} ({@code MoquetteBroker}). {@link Broker} holds the bridge's device policy and builds
 * this through a {@link Factory} that the composition root passes in, so that this package never names the Moquette
 * side.
 */
public interface BrokerEngine extends DevicePublisher, AutoCloseable {
    /** Starts the server and its listeners, and checks that each accepts connections. */
    void start();

    /** The listeners with the ports they bound, e.g. {@code mqtt://0.0.0.0:1883, mqtts://0.0.0.0:8883}. */
    String listeners();

    /** The port the plain MQTT listener bound; 0 when it is off or before the first start. */
    int mqttPort();

    /** The port the TLS listener bound; 0 when it is off or before the first start. */
    int tlsPort();

    boolean isRunning();

    Collection<String> connectedClientIds();

    BrokerStatus status();

    /** Closes the listeners (and every device connection), then the server. */
    @Override
    void close();

    /** What {@link Broker} built for the server: the settings and the bridge's device policy. */
    /** @param lost told when the engine cannot serve any more and only a restart of the process helps */
    /** @param acks told of each device's PUBACK of its final receipt (the command's timeline) */
    record Parts(
            BrokerSettings settings,
            Clock clock,
            InboundCommands commands,
            DeviceRegistry devices,
            DeviceLogin login,
            RefusalLog refusals,
            BrokerStoreResets storeResets,
            CertificateDevices certificates,
            Consumer<Throwable> lost,
            ReceiptAcks acks) {}

    /** Builds the server from the parts {@link Broker} built; e.g. {@code MoquetteBroker::new}. */
    @FunctionalInterface
    interface Factory {
        BrokerEngine create(Parts parts);
    }
}
