package org.edgebridge.broker.moquette;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.edgebridge.broker.DeviceRegistry;
import org.edgebridge.broker.RefusalLog;
import org.edgebridge.broker.Topics;

/**
 * What the per-device ACL ({@link DeviceAuthorizer}) refused: counted, per device and in all, logged (rate-limited by
 * {@link RefusalLog}), and a device that published outside its own command topics disconnected. Called on Moquette's
 * session-loop threads: nothing here blocks; the disconnect is handed to {@code disconnect}, which runs it elsewhere.
 */
final class AclRefusals {
    private final Topics topics;
    private final DeviceRegistry devices;
    private final RefusalLog refusals;
    private final Consumer<String> disconnect;
    private final AtomicLong publishes = new AtomicLong();
    private final AtomicLong subscribes = new AtomicLong();

    /** @param disconnect closes a device's connection, off the calling thread */
    AclRefusals(Topics topics, DeviceRegistry devices, RefusalLog refusals, Consumer<String> disconnect) {
        this.topics = topics;
        this.devices = devices;
        this.refusals = refusals;
        this.disconnect = disconnect;
    }

    void publish(String clientId, String topic) {
        publishes.incrementAndGet();
        devices.deniedPublish(clientId);
        refusals.warn(
                "publish",
                clientId,
                "refused PUBLISH of " + RefusalLog.quote(clientId) + " on " + RefusalLog.quote(topic)
                        + ": not its own command topic; closing the connection");
        disconnect.accept(clientId);
    }

    void subscribe(String clientId, String filter) {
        subscribes.incrementAndGet();
        devices.deniedSubscribe(clientId);
        refusals.warn(
                "subscribe",
                clientId,
                "refused SUBSCRIBE of " + RefusalLog.quote(clientId) + " to " + RefusalLog.quote(filter) + ": only "
                        + RefusalLog.quote(topics.receiptTopic(clientId)) + " is allowed");
    }

    long publishes() {
        return publishes.get();
    }

    long subscribes() {
        return subscribes.get();
    }
}
