package org.edgebridge.bench;

import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import com.hivemq.client.mqtt.mqtt3.Mqtt3Client;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Predicate;

/**
 * Simulated devices for the benchmark: HiveMQ MQTT clients (MQTT 3.1.1, persistent sessions), each with a bounded
 * number of commands in flight. Against the bridge a command stays in flight until its device gets a receipt for
 * it, as a device using business receipts does (a PUBACK proves nothing); against the bare broker, until its
 * PUBACK. Every message a device receives goes to one callback with the device's index.
 */
final class LoadDevices implements AutoCloseable {
    private final List<Mqtt3AsyncClient> clients = new ArrayList<>();
    private final List<Semaphore> inFlight = new ArrayList<>();
    private final boolean untilReceipt;
    final List<String> ids = new ArrayList<>();

    /**
     * @param onMessage (device index, payload) for every message a device receives; called on client threads
     */
    LoadDevices(int port, String prefix, int count, int maxInFlight, BiConsumer<Integer, byte[]> onMessage) {
        this(port, prefix, count, maxInFlight, (Predicate<byte[]>) null, onMessage);
    }

    /** @param untilReceipt a command is in flight until its device receives a receipt, not just its PUBACK */
    LoadDevices(
            int port,
            String prefix,
            int count,
            int maxInFlight,
            boolean untilReceipt,
            BiConsumer<Integer, byte[]> onMessage) {
        this(port, prefix, count, maxInFlight, untilReceipt ? LoadDevices::isFirstReceipt : null, onMessage);
    }

    /**
     * @param endsWait a message that ends the wait of one of its device's commands; null: the PUBACK ends it
     */
    LoadDevices(
            int port,
            String prefix,
            int count,
            int maxInFlight,
            Predicate<byte[]> endsWait,
            BiConsumer<Integer, byte[]> onMessage) {
        this.untilReceipt = endsWait != null;
        for (int i = 0; i < count; i++) {
            String id = prefix + i;
            int index = i;
            Mqtt3AsyncClient c = Mqtt3Client.builder()
                    .identifier(id)
                    .serverHost("127.0.0.1")
                    .serverPort(port)
                    .buildAsync();
            c.publishes(MqttGlobalPublishFilter.ALL, p -> {
                byte[] payload = p.getPayloadAsBytes();
                if (endsWait != null && endsWait.test(payload)) {
                    inFlight.get(index).release();
                }
                onMessage.accept(index, payload);
            });
            clients.add(c);
            inFlight.add(new Semaphore(maxInFlight));
            ids.add(id);
        }
    }

    /**
     * Connects every device (cleanSession=false); subscribes to {@code filterOf(id)} where the session is new.
     *
     * <p>A device whose CONNACK or SUBACK does not come within {@link #HANDSHAKE_WAIT} connects again (at most
     * {@link #HANDSHAKE_TRIES} times) and subscribes whatever the session says: bare Moquette 0.17 (B0, B7's baseline)
     * can lose a SUBSCRIBE sent right after its CONNACK (docs/moquette.md, "SUBSCRIBE received on already closed
     * connection"), which left B7's bare broker waiting 120 s for a SUBACK that never came, one run in a few. The
     * bridge's own listeners hold such a SUBSCRIBE until the connection is ready, so it never needs the retry.
     *
     * @return how many devices found their session present at the first try
     */
    int connect(java.util.function.Function<String, String> filterOf) {
        List<CompletableFuture<Boolean>> acks = new ArrayList<>();
        for (int i = 0; i < clients.size(); i++) {
            acks.add(handshake(clients.get(i), filterOf.apply(ids.get(i)), 1));
        }
        int present = 0;
        for (CompletableFuture<Boolean> a : acks) {
            if (a.join()) {
                present++;
            }
        }
        return present;
    }

    static final Duration HANDSHAKE_WAIT = Duration.ofSeconds(15);
    /** Longest wait for a free in-flight slot: as long as the figures' own wait for their last receipts. */
    static final Duration SLOT_WAIT = Duration.ofMinutes(5);

    static final int HANDSHAKE_TRIES = 5;

    private static CompletableFuture<Boolean> handshake(Mqtt3AsyncClient c, String filter, int attempt) {
        return c.connectWith()
                .cleanSession(false)
                .keepAlive(60)
                .send()
                .orTimeout(HANDSHAKE_WAIT.toMillis(), TimeUnit.MILLISECONDS)
                .thenCompose(ack -> {
                    boolean present = attempt == 1 && ack.isSessionPresent();
                    if (present || filter == null) {
                        return CompletableFuture.completedFuture(present);
                    }
                    return c.subscribeWith()
                            .topicFilter(filter)
                            .qos(MqttQos.AT_LEAST_ONCE)
                            .send()
                            .orTimeout(HANDSHAKE_WAIT.toMillis(), TimeUnit.MILLISECONDS)
                            .thenApply(s -> false);
                })
                .exceptionallyCompose(e -> {
                    if (attempt >= HANDSHAKE_TRIES) {
                        return CompletableFuture.failedFuture(new IllegalStateException(
                                c.getConfig()
                                                .getClientIdentifier()
                                                .map(Object::toString)
                                                .orElse("?") + ": no CONNACK/SUBACK in " + HANDSHAKE_TRIES
                                        + " tries of " + HANDSHAKE_WAIT,
                                e));
                    }
                    CompletableFuture<Void> closed = c.getState().isConnectedOrReconnect()
                            ? c.disconnect().exceptionally(x -> null)
                            : CompletableFuture.completedFuture(null);
                    return closed.thenCompose(v -> handshake(c, filter, attempt + 1));
                });
    }

    /**
     * Publishes at QoS 1 once fewer than maxInFlight of this device's publishes await their PUBACK (or receipt).
     *
     * @return {@link System#nanoTime()} when it was sent, after the wait for a free slot
     */
    long publish(int device, String topic, String payload) throws InterruptedException {
        return publish(device, topic, payload, at -> {});
    }

    /**
     * {@link #publish(int, String, String)}, and {@code onPuback} gets {@link System#nanoTime()} when its PUBACK came
     * (on the client's thread; not called if none came).
     */
    long publish(int device, String topic, String payload, java.util.function.LongConsumer onPuback)
            throws InterruptedException {
        Semaphore s = inFlight.get(device);
        if (!s.tryAcquire(SLOT_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
            // a bridge that died, or receipts that stopped coming: a bench that fails, not one that waits for ever
            throw new IllegalStateException(ids.get(device) + ": no PUBACK or receipt freed a slot of its in-flight "
                    + "commands within " + SLOT_WAIT + " (is the broker or bridge still running?)");
        }
        long sentAt = System.nanoTime();
        clients.get(device)
                .publishWith()
                .topic(topic)
                .qos(MqttQos.AT_LEAST_ONCE)
                .payload(payload.getBytes(StandardCharsets.UTF_8))
                .send()
                .whenComplete((r, e) -> {
                    if (e == null) {
                        onPuback.accept(System.nanoTime());
                    }
                    if (!untilReceipt || e != null) {
                        s.release();
                    }
                });
        return sentAt;
    }

    /**
     * The receipt that ends a command's wait, exactly once per command: {@code stored}, {@code retry_later}, or a
     * rejection by the bridge itself (it has no sequence: the command was never stored, so no {@code stored} came).
     */
    static boolean isFirstReceipt(byte[] payload) {
        String status = field(payload, "status");
        if ("stored".equals(status) || "retry_later".equals(status)) {
            return true;
        }
        return "rejected".equals(status) && new String(payload, StandardCharsets.UTF_8).contains("\"sequence\":null");
    }

    /** A final receipt: the one that ends a command's wait for a device that waits for its final. */
    static boolean isFinal(byte[] payload) {
        return new String(payload, StandardCharsets.UTF_8).contains("\"final\":true");
    }

    String id(int device) {
        return ids.get(device);
    }

    int size() {
        return clients.size();
    }

    void disconnectAll() {
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (Mqtt3AsyncClient c : clients) {
            if (c.getState().isConnected()) {
                done.add(c.disconnect().exceptionally(e -> null));
            }
        }
        done.forEach(
                f -> f.orTimeout(30, TimeUnit.SECONDS).exceptionally(e -> null).join());
    }

    @Override
    public void close() {
        disconnectAll();
    }

    /** A command of about 200 bytes, as the benchmark's devices send them. */
    static String command(String commandId) {
        return "{\"commandId\":\"" + commandId + "\",\"workOrderId\":\"WO-20261129-0001\",\"action\":\"ARRIVE\","
                + "\"site\":\"bench\",\"createdAt\":\"2026-11-29T06:33:00.123Z\",\"note\":\"" + "x".repeat(60) + "\"}";
    }

    /** Cheap field read of a receipt, without a JSON parser on the hot path. */
    static String field(byte[] json, String name) {
        String s = new String(json, StandardCharsets.UTF_8);
        String key = "\"" + name + "\":\"";
        int i = s.indexOf(key);
        if (i < 0) {
            return null;
        }
        int start = i + key.length();
        return s.substring(start, s.indexOf('"', start));
    }
}
