package org.edgebridge.device;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.hivemq.client.mqtt.MqttClientTransportConfig;
import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import com.hivemq.client.mqtt.mqtt3.Mqtt3Client;
import com.hivemq.client.mqtt.mqtt3.exceptions.Mqtt3SubAckException;
import com.hivemq.client.mqtt.mqtt3.message.connect.connack.Mqtt3ConnAck;
import com.hivemq.client.mqtt.mqtt3.message.subscribe.suback.Mqtt3SubAck;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A device on a real MQTT 3.1.1 connection (HiveMQ client), the one device simulator of the tests. Made by
 * {@link #builder}: client id, credentials, TLS, clean or persistent session (3.1.1 has no session expiry: a
 * persistent session lasts until the broker drops it), keep-alive, a will, and connect timeout.
 *
 * <p>Two ways to drive it. <b>Step by step</b> (most tests): {@link #connect}, {@link #publish}, then wait for
 * receipts by commandId ({@link #awaitReceipt}, {@link #awaitFinal}) or resend until final
 * ({@link #resendUntilFinal}); every receipt is kept, parsed, in arrival order. <b>Careful</b> (the fault
 * suites): built with {@link DeviceBuilder#careful}, it keeps a {@link DeviceOutbox} of commands without a final
 * receipt across reconnects, and each {@link #tick} reconnects if the link is gone (with a little jitter) and
 * sends what is due; receipts go to the outbox, which checks them.
 *
 * <p>Receipts are caught by a callback registered before CONNECT, so receipts queued in a persistent session and
 * delivered right after CONNACK are not missed. It needs no test library (no JUnit, no Awaitility): a tool such
 * as the benchmark can drive it too, with {@link #connectAsync}, {@link #subscribeAsync}, {@link #publishAsync},
 * {@link #disconnectAsync} and {@link DeviceBuilder#onMessage} (with {@link DeviceBuilder#keepReceipts} off).
 *
 * <p>Threads: the caller's, and the HiveMQ client's for callbacks. All state is guarded by {@code this}.
 */
public final class DeviceSimulator implements AutoCloseable {
    public static final ObjectMapper JSON = new ObjectMapper();
    /** How long the await methods wait for a receipt. */
    public static final Duration WAIT = Duration.ofSeconds(30);

    private static final Duration REPLY_TIMEOUT = Duration.ofSeconds(10);

    /** One CONNACK: in which life of the bridge it came ({@link DeviceBuilder#bridgeLife}), and whether the session was there. */
    public record Connack(int bridgeLife, boolean sessionPresent) {}

    private final DeviceBuilder settings;
    private final String clientId;
    private final DeviceOutbox outbox;
    private final FleetCounters counters;
    private final List<JsonNode> receipts = new ArrayList<>();
    private final List<Connack> connacks = new ArrayList<>();
    private Mqtt3AsyncClient client;
    private CarefulLink link;

    DeviceSimulator(DeviceBuilder b) {
        this.settings = b;
        this.clientId = b.clientId;
        this.counters = b.counters;
        this.outbox = b.careful == null
                ? null
                : new DeviceOutbox(
                        clientId,
                        counters,
                        b.careful.toCreate(),
                        b.careful.firstCreateNanos(),
                        b.careful.createEveryNanos(),
                        b.behindBalancer);
    }

    /** A device with client id {@code clientId} for the broker on loopback port {@code port}. */
    public static DeviceBuilder builder(String clientId, int port) {
        return new DeviceBuilder(clientId, port);
    }

    /** A device with the defaults: no credentials, no TLS, persistent session, keep-alive 30 s. */
    public static DeviceSimulator of(String clientId, int port) {
        return builder(clientId, port).build();
    }

    /** A command payload with this commandId and more JSON members ({@code "a":1,"b":2}, or empty). */
    public static String command(String commandId, String extra) {
        return "{\"commandId\":\"" + commandId + "\"" + (extra.isEmpty() ? "" : "," + extra) + "}";
    }

    public String clientId() {
        return clientId;
    }

    public String receiptTopic() {
        return "devices/" + clientId + "/receipts";
    }

    // ---- the connection

    /** Connects with the session the builder chose (persistent by default) and returns the CONNACK. */
    public Mqtt3ConnAck connect() {
        return connect(settings.cleanSession);
    }

    public Mqtt3ConnAck connect(boolean cleanSession) {
        return join(connectAsync(cleanSession));
    }

    /** Connects without waiting; a refused CONNECT completes the future exceptionally. */
    public CompletableFuture<Mqtt3ConnAck> connectAsync(boolean cleanSession) {
        Mqtt3AsyncClient c = newClient(() -> {});
        useClient(c);
        var connect = c.connectWith().cleanSession(cleanSession).keepAlive(settings.keepAliveSeconds);
        if (settings.willTopic != null) {
            connect = connect.willPublish()
                    .topic(settings.willTopic)
                    .payload(settings.willPayload)
                    .qos(MqttQos.AT_LEAST_ONCE)
                    .applyWillPublish();
        }
        return connect.send().thenApply(ack -> {
            recordConnack(new Connack(settings.bridgeLife.getAsInt(), ack.isSessionPresent()));
            return ack;
        });
    }

    /** Connects (persistent session) and subscribes to its receipt topic when the session is new. */
    public Mqtt3ConnAck connectAndSubscribe() {
        Mqtt3ConnAck ack = connect(false);
        if (!ack.isSessionPresent()) {
            subscribe(receiptTopic());
        }
        return ack;
    }

    /** A new connection with the same client id, after the old one was lost; receipts seen so far are kept. */
    public Mqtt3ConnAck reconnectAndSubscribe() {
        disconnectQuietly();
        return connectAndSubscribe();
    }

    /** Subscribes at QoS 1 and returns the SUBACK, also when it holds only failure codes. */
    public Mqtt3SubAck subscribe(String filter) {
        try {
            return join(subscribeAsync(filter));
        } catch (CompletionException e) {
            if (e.getCause() instanceof Mqtt3SubAckException refused) {
                return refused.getMqttMessage();
            }
            throw e;
        }
    }

    /** Subscribes at QoS 1; a SUBACK with only failure codes completes the future exceptionally. */
    public CompletableFuture<Mqtt3SubAck> subscribeAsync(String filter) {
        return client().subscribeWith()
                .topicFilter(filter)
                .qos(MqttQos.AT_LEAST_ONCE)
                .send();
    }

    public synchronized boolean isConnected() {
        return client != null && client.getState().isConnected();
    }

    /** Every CONNACK this device got, in order. */
    public synchronized List<Connack> connacks() {
        return List.copyOf(connacks);
    }

    /** Writes a CONNACK down as if it had come (for tests of what reads {@link #connacks}). */
    public synchronized void recordConnack(Connack connack) {
        connacks.add(connack);
    }

    public void disconnect() {
        join(disconnectAsync());
    }

    /** Sends DISCONNECT if connected; the future completes once it is sent. */
    public CompletableFuture<Void> disconnectAsync() {
        Mqtt3AsyncClient c = currentClient();
        return c != null && c.getState().isConnected() ? c.disconnect() : CompletableFuture.completedFuture(null);
    }

    @Override
    public void close() {
        synchronized (this) {
            if (link != null) {
                link.close(); // without waiting: a fleet closes many
                return;
            }
        }
        disconnectQuietly();
    }

    private void disconnectQuietly() {
        try {
            disconnect();
        } catch (RuntimeException ignored) {
            // the connection may already be gone
        }
    }

    // ---- publishing

    /** Publishes to {@code devices/<clientId>/commands/<topicSuffix>} at QoS 1 and waits for the PUBACK. */
    public void publish(String topicSuffix, String payload) {
        publishTo(commandTopic(topicSuffix), payload.getBytes(StandardCharsets.UTF_8));
    }

    /** Publishes at QoS 1 and waits for the PUBACK. */
    public void publishTo(String topic, byte[] payload) {
        join(publishAsync(topic, payload));
    }

    /** Publishes at QoS 1; the future completes with the PUBACK. */
    public CompletableFuture<?> publishAsync(String topic, byte[] payload) {
        return client().publishWith()
                .topic(topic)
                .qos(MqttQos.AT_LEAST_ONCE)
                .payload(payload)
                .send();
    }

    public void publishWithoutWaiting(String topic, byte[] payload) {
        publishAsync(topic, payload);
    }

    String commandTopic(String topicSuffix) {
        return "devices/" + clientId + "/commands/" + topicSuffix;
    }

    // ---- receipts, step by step

    public synchronized List<JsonNode> receipts() {
        return List.copyOf(receipts);
    }

    public synchronized List<JsonNode> receiptsFor(String commandId) {
        return receipts.stream()
                .filter(r -> commandId.equals(r.path("commandId").asText(null)))
                .toList();
    }

    /** Waits up to {@link #WAIT} for a receipt of this status, and returns the first. */
    public JsonNode awaitReceipt(String commandId, String status) {
        return awaitReceipt(commandId, r -> status.equals(r.path("status").asText()), "receipt " + status, WAIT);
    }

    /** Waits up to {@link #WAIT} for a final receipt, and returns the first. */
    public JsonNode awaitFinal(String commandId) {
        return awaitReceipt(commandId, DeviceSimulator::isFinal, "final receipt", WAIT);
    }

    private JsonNode awaitReceipt(String commandId, Predicate<JsonNode> which, String what, Duration atMost) {
        return firstWithin(commandId, which, atMost)
                .orElseThrow(() -> new AssertionError("no " + what + " for " + commandId + " at " + clientId
                        + " within " + atMost + "; receipts: " + receipts()));
    }

    /** The first receipt for this command that matches, once it has come or {@code atMost} has passed. */
    private synchronized Optional<JsonNode> firstWithin(String commandId, Predicate<JsonNode> which, Duration atMost) {
        long deadline = System.nanoTime() + atMost.toNanos();
        while (true) {
            Optional<JsonNode> found =
                    receiptsFor(commandId).stream().filter(which).findFirst();
            long left = deadline - System.nanoTime();
            if (found.isPresent() || left <= 0) {
                return found;
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(this, left); // woken by every receipt
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return found;
            }
        }
    }

    /**
     * What a careful device does until every command has a final receipt: after {@code every} without one, it
     * connects again if the bridge closed the connection (a restart, or its broker restarting itself), and resends
     * each open command with the same bytes.
     *
     * @param payloads commandId to payload
     */
    public void resendUntilFinal(Map<String, String> payloads, String topicSuffix, Duration every, Duration atMost) {
        long deadline = System.nanoTime() + atMost.toNanos();
        while (System.nanoTime() < deadline) {
            List<String> open =
                    payloads.keySet().stream().filter(id -> !hasFinal(id)).toList();
            if (open.isEmpty()) {
                return;
            }
            long roundEnds = System.nanoTime() + every.toNanos();
            for (String id : open) {
                firstWithin(id, DeviceSimulator::isFinal, Duration.ofNanos(Math.max(0, roundEnds - System.nanoTime())));
            }
            List<String> stillOpen = open.stream().filter(id -> !hasFinal(id)).toList();
            if (stillOpen.isEmpty()) {
                continue;
            }
            if (!isConnected()) {
                reconnectAndSubscribe();
            }
            for (String id : stillOpen) {
                publish(topicSuffix, payloads.get(id));
            }
        }
        throw new AssertionError("no final receipt within " + atMost + " for some of " + payloads.keySet()
                + "; receipts: " + receipts());
    }

    private boolean hasFinal(String commandId) {
        return receiptsFor(commandId).stream().anyMatch(DeviceSimulator::isFinal);
    }

    static boolean isFinal(JsonNode receipt) {
        return receipt.path("final").asBoolean();
    }

    // ---- careful mode

    /** The device's own outbox; only in careful mode. */
    public DeviceOutbox outbox() {
        if (outbox == null) {
            throw new IllegalStateException(clientId + " was not built careful");
        }
        return outbox;
    }

    /** Careful mode: creates the commands that are due, (re)connects if the link is gone, and sends what is due. */
    public synchronized void tick(long now) {
        if (link == null) {
            link = new CarefulLink(this, settings, counters);
        }
        outbox().createDue(now);
        if (link.ready(now)) {
            for (DeviceOutbox.Due due : outbox.due(now)) {
                link.send(commandTopic(DeviceOutbox.TOPIC_SUFFIX), due.payload());
            }
        }
    }

    /** Careful mode: connected and subscribed. */
    public synchronized boolean isReady() {
        return link != null && link.isReady();
    }

    /**
     * Careful mode: how long the device has been connected and subscribed (its session acknowledged by a CONNACK
     * that had it, or by the SUBACK after one that had not), at {@code now} ({@link System#nanoTime}); empty when
     * it is not ready.
     */
    public synchronized Optional<Duration> readyFor(long now) {
        return isReady() ? Optional.of(Duration.ofNanos(now - link.readySinceNanos())) : Optional.empty();
    }

    // ---- what the client calls

    /** A new client whose messages come to {@link #receive}; {@code onDisconnected} runs when its link goes. */
    Mqtt3AsyncClient newClient(Runnable onDisconnected) {
        var transport = MqttClientTransportConfig.builder()
                .serverHost(settings.host)
                .serverPort(settings.port)
                .socketConnectTimeout(settings.connectTimeout.toMillis(), TimeUnit.MILLISECONDS)
                .mqttConnectTimeout(settings.connectTimeout.toMillis(), TimeUnit.MILLISECONDS);
        if (settings.tls != null) {
            transport = transport.sslConfig(settings.tls);
        }
        var builder = Mqtt3Client.builder()
                .identifier(clientId)
                .transportConfig(transport.build())
                .addDisconnectedListener(context -> onDisconnected.run());
        if (settings.username != null) {
            builder = builder.simpleAuth()
                    .username(settings.username)
                    .password(settings.password)
                    .applySimpleAuth();
        }
        Mqtt3AsyncClient c = builder.buildAsync();
        c.publishes(MqttGlobalPublishFilter.ALL, publish -> receive(publish.getPayloadAsBytes()));
        return c;
    }

    synchronized void useClient(Mqtt3AsyncClient c) {
        client = c;
    }

    /** A message arrived (on the MQTT client's thread, or from a test that plays one). */
    public synchronized void receive(byte[] bytes) {
        settings.onMessage.accept(bytes);
        if (outbox != null) {
            outbox.receive(bytes);
        } else if (settings.keepReceipts) {
            try {
                receipts.add(JSON.readTree(bytes));
            } catch (IOException e) {
                receipts.add(JSON.getNodeFactory().textNode(new String(bytes, StandardCharsets.UTF_8)));
            }
        }
        notifyAll();
    }

    private synchronized Mqtt3AsyncClient currentClient() {
        return client;
    }

    private Mqtt3AsyncClient client() {
        Mqtt3AsyncClient c = currentClient();
        if (c == null) {
            throw new IllegalStateException(clientId + " is not connected");
        }
        return c;
    }

    private static <T> T join(CompletableFuture<T> future) {
        return future.orTimeout(REPLY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).join();
    }
}
