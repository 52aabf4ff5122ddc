package org.edgebridge.it;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.hivemq.client.mqtt.MqttClientSslConfig;
import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import com.hivemq.client.mqtt.mqtt3.Mqtt3Client;
import com.hivemq.client.mqtt.mqtt3.exceptions.Mqtt3SubAckException;
import com.hivemq.client.mqtt.mqtt3.message.connect.connack.Mqtt3ConnAck;
import com.hivemq.client.mqtt.mqtt3.message.subscribe.suback.Mqtt3SubAck;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A device on a real MQTT connection (HiveMQ client, MQTT 3.1.1) that collects every receipt it is sent.
 * Receipts are caught by a global callback registered before CONNECT, so receipts queued in a persistent
 * session and delivered right after CONNACK are not missed.
 */
final class TestDevice implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Duration WAIT = Duration.ofSeconds(30);

    final String clientId;
    private final int port;
    private final List<JsonNode> receipts = new CopyOnWriteArrayList<>();
    private Mqtt3AsyncClient client;
    private MqttClientSslConfig tls;
    private String username;
    private byte[] password;

    TestDevice(String clientId, int port) {
        this.clientId = clientId;
        this.port = port;
    }

    /** Connects over TLS with this configuration (trust, and a client certificate if any). */
    TestDevice withTls(MqttClientSslConfig tls) {
        this.tls = tls;
        return this;
    }

    TestDevice withCredentials(String username, String password) {
        this.username = username;
        this.password = password.getBytes(StandardCharsets.UTF_8);
        return this;
    }

    /** Connects with cleanSession=false (a persistent session) and returns the CONNACK. */
    Mqtt3ConnAck connect() {
        return connect(false);
    }

    Mqtt3ConnAck connect(boolean cleanSession) {
        var builder = Mqtt3Client.builder().identifier(clientId).serverHost("127.0.0.1").serverPort(port);
        if (tls != null) {
            builder = builder.sslConfig(tls);
        }
        if (username != null) {
            builder = builder.simpleAuth().username(username).password(password).applySimpleAuth();
        }
        client = builder.buildAsync();
        client.publishes(MqttGlobalPublishFilter.ALL, publish -> {
            try {
                receipts.add(JSON.readTree(publish.getPayloadAsBytes()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        return client.connectWith().cleanSession(cleanSession).keepAlive(30).send().orTimeout(10, TimeUnit.SECONDS).join();
    }

    /** A new connection with the same client id, after the old one was lost; receipts seen so far are kept. */
    Mqtt3ConnAck reconnectAndSubscribe() {
        if (client != null && client.getState().isConnected()) {
            client.disconnect();
        }
        return connectAndSubscribe();
    }

    /**
     * What a careful device does until every command has a final receipt: after {@code every} without one,
     * resend it with the same bytes.
     */
    void resendUntilFinal(java.util.Map<String, String> payloads, String topicSuffix, Duration every, Duration atMost) {
        long deadline = System.nanoTime() + atMost.toNanos();
        while (System.nanoTime() < deadline) {
            List<String> open = payloads.keySet().stream()
                    .filter(id -> receiptsFor(id).stream().noneMatch(r -> r.path("final").asBoolean())).toList();
            if (open.isEmpty()) {
                return;
            }
            try {
                await().atMost(every).until(() -> open.stream().allMatch(id ->
                        receiptsFor(id).stream().anyMatch(r -> r.path("final").asBoolean())));
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                if (!isConnected()) {
                    // the bridge closed the connection (a restart, or its broker restarting itself): a careful device
                    // connects again and resends
                    reconnectAndSubscribe();
                }
                for (String id : open) {
                    if (receiptsFor(id).stream().noneMatch(r -> r.path("final").asBoolean())) {
                        publish(topicSuffix, payloads.get(id));
                    }
                }
            }
        }
        throw new AssertionError("no final receipt within " + atMost + " for some of " + payloads.keySet()
                + "; receipts: " + receipts());
    }

    /** Connects and subscribes to the receipt topic when the session is new. */
    Mqtt3ConnAck connectAndSubscribe() {
        Mqtt3ConnAck ack = connect(false);
        if (!ack.isSessionPresent()) {
            subscribe("devices/" + clientId + "/receipts");
        }
        return ack;
    }

    /** Subscribes and returns the SUBACK, also when it holds only failure codes. */
    Mqtt3SubAck subscribe(String filter) {
        try {
            return client.subscribeWith().topicFilter(filter).qos(MqttQos.AT_LEAST_ONCE).send()
                    .orTimeout(10, TimeUnit.SECONDS).join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof Mqtt3SubAckException refused) {
                return refused.getMqttMessage();
            }
            throw e;
        }
    }

    /** Publishes at QoS 1 and waits for the PUBACK. */
    void publish(String topicSuffix, String payload) {
        publishTo("devices/" + clientId + "/commands/" + topicSuffix, payload.getBytes(StandardCharsets.UTF_8));
    }

    void publishTo(String topic, byte[] payload) {
        client.publishWith().topic(topic).qos(MqttQos.AT_LEAST_ONCE).payload(payload).send()
                .orTimeout(10, TimeUnit.SECONDS).join();
    }

    static String command(String commandId, String extra) {
        return "{\"commandId\":\"" + commandId + "\"" + (extra.isEmpty() ? "" : "," + extra) + "}";
    }

    void publishWithoutWaiting(String topic, byte[] payload) {
        client.publishWith().topic(topic).qos(MqttQos.AT_LEAST_ONCE).payload(payload).send();
    }

    List<JsonNode> receipts() {
        return List.copyOf(receipts);
    }

    List<JsonNode> receiptsFor(String commandId) {
        return receipts.stream().filter(r -> commandId.equals(r.path("commandId").asText(null))).toList();
    }

    JsonNode awaitReceipt(String commandId, String status) {
        await("receipt " + status + " for " + commandId + " at " + clientId).atMost(WAIT)
                .until(() -> receiptsFor(commandId).stream().anyMatch(r -> status.equals(r.path("status").asText())));
        return receiptsFor(commandId).stream().filter(r -> status.equals(r.path("status").asText())).findFirst().orElseThrow();
    }

    JsonNode awaitFinal(String commandId) {
        await("final receipt for " + commandId + " at " + clientId).atMost(WAIT)
                .until(() -> receiptsFor(commandId).stream().anyMatch(r -> r.path("final").asBoolean()));
        return receiptsFor(commandId).stream().filter(r -> r.path("final").asBoolean()).findFirst().orElseThrow();
    }

    boolean isConnected() {
        return client != null && client.getState().isConnected();
    }

    void disconnect() {
        if (client != null && client.getState().isConnected()) {
            client.disconnect().orTimeout(10, TimeUnit.SECONDS).join();
        }
    }

    @Override
    public void close() {
        try {
            disconnect();
        } catch (RuntimeException ignored) {
            // the test is over; the connection may already be gone
        }
    }
}
