package org.edgebridge.device;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import com.hivemq.client.mqtt.mqtt3.message.connect.connack.Mqtt3ConnAck;
import com.hivemq.client.mqtt.mqtt3.message.subscribe.suback.Mqtt3SubAck;
import com.hivemq.client.mqtt.mqtt3.message.subscribe.suback.Mqtt3SubAckReturnCode;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The connection of a careful {@link DeviceSimulator}: it keeps one client id with {@code cleanSession=false},
 * subscribes again when a CONNACK says {@code sessionPresent=0}, and reconnects on its own, 0.2-0.8 s after the
 * link went, forever. Each connection is a generation; callbacks of an older one are ignored. Once connected and
 * subscribed, every open command of the device's outbox is due again.
 *
 * <p>All state is guarded by the device's lock (the callbacks take it; the device calls in holding it).
 */
final class CarefulLink {
    private final DeviceSimulator device;
    private final DeviceBuilder settings;
    private final FleetCounters counters;
    private Mqtt3AsyncClient client;
    private int generation;
    private boolean connecting;
    private boolean ready;
    /** When the link last became ready (its session acknowledged: a CONNACK with the session, or a SUBACK). */
    private long readySinceNanos;

    private long nextConnectNanos;

    CarefulLink(DeviceSimulator device, DeviceBuilder settings, FleetCounters counters) {
        this.device = device;
        this.settings = settings;
        this.counters = counters;
    }

    /** Whether commands can be sent now; if not, connects when it is time to. */
    boolean ready(long now) {
        if (ready && !client.getState().isConnected()) {
            // the link died without a disconnect callback for this generation (e.g. it came before the CONNACK's)
            counters.linksLost.increment();
            retryConnectLater();
        }
        if (!ready && !connecting && now >= nextConnectNanos) {
            connect();
        }
        return ready;
    }

    boolean isReady() {
        return ready;
    }

    /** When the link became ready ({@link System#nanoTime}); meaningless while not {@link #isReady}. */
    long readySinceNanos() {
        return readySinceNanos;
    }

    void send(String topic, byte[] payload) {
        client.publishWith()
                .topic(topic)
                .qos(MqttQos.AT_LEAST_ONCE)
                .payload(payload)
                .send()
                .whenComplete((result, error) -> {
                    if (error != null) {
                        counters.publishFailures.increment(); // the link went; the command is resent after reconnect
                    }
                });
    }

    private void connect() {
        connecting = true;
        int gen = ++generation;
        Mqtt3AsyncClient c = device.newClient(() -> onDisconnected(gen));
        client = c;
        device.useClient(c);
        counters.connectAttempts.increment();
        c.connectWith()
                .cleanSession(false)
                .keepAlive(settings.keepAliveSeconds())
                .send()
                .whenComplete((ack, error) -> onConnected(gen, c, ack, error));
    }

    private void onConnected(int gen, Mqtt3AsyncClient c, Mqtt3ConnAck ack, Throwable error) {
        synchronized (device) {
            if (gen != generation) {
                c.disconnect();
                return;
            }
            if (error != null) {
                retryConnectLater();
                return;
            }
            device.recordConnack(
                    new DeviceSimulator.Connack(settings.bridgeLife().getAsInt(), ack.isSessionPresent()));
            counters.connects.increment();
            if (ack.isSessionPresent()) {
                becomeReady();
                return;
            }
            counters.sessionsNotPresent.increment();
            c.subscribeWith()
                    .topicFilter(device.receiptTopic())
                    .qos(MqttQos.AT_LEAST_ONCE)
                    .send()
                    .whenComplete((subAck, subError) -> onSubscribed(gen, c, subAck, subError));
        }
    }

    private void onSubscribed(int gen, Mqtt3AsyncClient c, Mqtt3SubAck subAck, Throwable error) {
        synchronized (device) {
            if (gen != generation) {
                return;
            }
            if (error != null || subAck.getReturnCodes().contains(Mqtt3SubAckReturnCode.FAILURE)) {
                if (error == null) {
                    device.outbox().anomaly("SUBSCRIBE to its own receipt topic refused: " + subAck);
                }
                c.disconnect();
                retryConnectLater();
                return;
            }
            becomeReady();
        }
    }

    /** Connected and subscribed: every open command goes out again now. */
    private void becomeReady() {
        ready = true;
        readySinceNanos = System.nanoTime();
        connecting = false;
        device.outbox().allDueAt(System.nanoTime());
    }

    private void onDisconnected(int gen) {
        synchronized (device) {
            if (gen == generation && (ready || connecting)) {
                if (ready) {
                    counters.linksLost.increment();
                }
                retryConnectLater();
            }
        }
    }

    private void retryConnectLater() {
        ready = false;
        connecting = false;
        nextConnectNanos = System.nanoTime()
                + TimeUnit.MILLISECONDS.toNanos(
                        200 + ThreadLocalRandom.current().nextInt(600));
    }

    /** Ends this link: callbacks of the current generation are ignored from now on. */
    void close() {
        generation++;
        ready = false;
        if (client != null) {
            client.disconnect();
        }
    }
}
