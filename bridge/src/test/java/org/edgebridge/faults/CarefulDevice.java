package org.edgebridge.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import com.hivemq.client.mqtt.mqtt3.Mqtt3Client;
import com.hivemq.client.mqtt.mqtt3.message.connect.connack.Mqtt3ConnAck;
import com.hivemq.client.mqtt.mqtt3.message.subscribe.suback.Mqtt3SubAck;
import com.hivemq.client.mqtt.mqtt3.message.subscribe.suback.Mqtt3SubAckReturnCode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * A device as a careful one is written: its own outbox of commands, each with a stable commandId made once;
 * a command is kept until a final receipt and sent again with the same bytes after a timeout (5 s before the
 * bridge said {@code stored}, then 15 s doubling to 60 s), after {@code retryAfterMs} on {@code retry_later},
 * and after every reconnect. It keeps one client id with {@code cleanSession=false} and subscribes again when
 * a CONNACK says {@code sessionPresent=0}. It reconnects on its own, with a little jitter, forever.
 *
 * <p>It also checks every receipt against what it sent, and writes down anything a device could catch the
 * bridge doing wrong ({@link #anomalies()}).
 *
 * <p>Threads: {@link #tick(long)} runs on the fleet's scheduler; MQTT callbacks run on the HiveMQ client's
 * threads. All state is guarded by {@code this}.
 */
final class CarefulDevice {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
    static final int KEEP_ALIVE_SECONDS = 5;

    /** One CONNACK: in which life of the bridge it came, and whether the session was there. */
    record Connack(int bridgeLife, boolean sessionPresent) {}

    /** One command in the device's own outbox. */
    static final class LocalCommand {
        final String commandId;
        final byte[] payload;
        final String sha256;
        int sends;
        long nextSendNanos;
        boolean stored;
        long sequence = -1;
        String finalStatus;
        JsonNode finalReceipt;

        LocalCommand(String commandId, byte[] payload) {
            this.commandId = commandId;
            this.payload = payload;
            this.sha256 = sha256(payload);
        }

        boolean open() {
            return finalStatus == null;
        }
    }

    private final String clientId;
    private final int port;
    private final IntSupplier bridgeLife;
    private final FleetCounters counters;
    private final int toCreate;
    private final long firstCreateNanos;
    private final long createEveryNanos;
    private final Map<String, LocalCommand> outbox = new LinkedHashMap<>();
    private final List<Connack> connacks = new ArrayList<>();
    private final List<String> anomalies = new ArrayList<>();
    private Mqtt3AsyncClient client;
    private int generation;
    private boolean connecting;
    private boolean ready;
    private long nextConnectNanos;

    CarefulDevice(String clientId, int port, IntSupplier bridgeLife, FleetCounters counters, int toCreate,
            long firstCreateNanos, long createEveryNanos) {
        this.clientId = clientId;
        this.port = port;
        this.bridgeLife = bridgeLife;
        this.counters = counters;
        this.toCreate = toCreate;
        this.firstCreateNanos = firstCreateNanos;
        this.createEveryNanos = createEveryNanos;
    }

    String clientId() {
        return clientId;
    }

    /** Creates the commands that are due, (re)connects, and sends what is due. */
    synchronized void tick(long now) {
        createDue(now);
        if (ready && !client.getState().isConnected()) {
            // the link died without a disconnect callback for this generation (e.g. it came before the CONNACK's)
            counters.linksLost.increment();
            retryConnectLater();
        }
        if (!ready) {
            if (!connecting && now >= nextConnectNanos) {
                connect();
            }
            return;
        }
        for (LocalCommand c : outbox.values()) {
            if (c.open() && now >= c.nextSendNanos) {
                send(c, now);
            }
        }
    }

    /** Puts the commands that are due by {@code now} into the device's outbox. */
    synchronized void createDue(long now) {
        while (outbox.size() < toCreate && now >= firstCreateNanos + outbox.size() * createEveryNanos) {
            create(now);
        }
    }

    private void create(long now) {
        int n = outbox.size() + 1;
        String commandId = clientId + "-c" + n;
        String nonce = Long.toHexString(ThreadLocalRandom.current().nextLong());
        String json = "{\"commandId\":\"" + commandId + "\",\"type\":\"workorder/update\",\"n\":" + n
                + ",\"nonce\":\"" + nonce + "\",\"createdAt\":\"" + java.time.Instant.now() + "\"}";
        LocalCommand c = new LocalCommand(commandId, json.getBytes(StandardCharsets.UTF_8));
        c.nextSendNanos = now;
        outbox.put(commandId, c);
        counters.created.increment();
    }

    private void send(LocalCommand c, long now) {
        if (c.sends > 0) {
            counters.resends.increment();
        }
        c.sends++;
        c.nextSendNanos = now + resendDelay(c);
        client.publishWith().topic("devices/" + clientId + "/commands/workorder/update").qos(MqttQos.AT_LEAST_ONCE)
                .payload(c.payload).send()
                .whenComplete((result, error) -> {
                    if (error != null) {
                        counters.publishFailures.increment(); // the link went; the command is resent after reconnect
                    }
                });
    }

    private static long resendDelay(LocalCommand c) {
        if (!c.stored) {
            return 5 * SECOND;
        }
        return Math.min(60 * SECOND, 15 * SECOND << Math.min(2, Math.max(0, c.sends - 1)));
    }

    private void connect() {
        connecting = true;
        int gen = ++generation;
        Mqtt3AsyncClient c = Mqtt3Client.builder().identifier(clientId).serverHost("127.0.0.1").serverPort(port)
                .transportConfig().socketConnectTimeout(3, TimeUnit.SECONDS).mqttConnectTimeout(5, TimeUnit.SECONDS)
                .applyTransportConfig()
                .addDisconnectedListener(context -> onDisconnected(gen))
                .buildAsync();
        c.publishes(MqttGlobalPublishFilter.ALL, publish -> receive(publish.getPayloadAsBytes()));
        client = c;
        counters.connectAttempts.increment();
        c.connectWith().cleanSession(false).keepAlive(KEEP_ALIVE_SECONDS).send()
                .whenComplete((ack, error) -> onConnected(gen, c, ack, error));
    }

    private synchronized void onConnected(int gen, Mqtt3AsyncClient c, Mqtt3ConnAck ack, Throwable error) {
        if (gen != generation) {
            c.disconnect();
            return;
        }
        if (error != null) {
            retryConnectLater();
            return;
        }
        recordConnack(new Connack(bridgeLife.getAsInt(), ack.isSessionPresent()));
        counters.connects.increment();
        if (ack.isSessionPresent()) {
            becomeReady();
            return;
        }
        counters.sessionsNotPresent.increment();
        c.subscribeWith().topicFilter("devices/" + clientId + "/receipts").qos(MqttQos.AT_LEAST_ONCE).send()
                .whenComplete((subAck, subError) -> onSubscribed(gen, c, subAck, subError));
    }

    synchronized void recordConnack(Connack connack) {
        connacks.add(connack);
    }

    private synchronized void onSubscribed(int gen, Mqtt3AsyncClient c, Mqtt3SubAck subAck, Throwable error) {
        if (gen != generation) {
            return;
        }
        if (error != null || subAck.getReturnCodes().contains(Mqtt3SubAckReturnCode.FAILURE)) {
            if (error == null) {
                anomalies.add("SUBSCRIBE to its own receipt topic refused: " + subAck);
            }
            c.disconnect();
            retryConnectLater();
            return;
        }
        becomeReady();
    }

    /** Connected and subscribed: every open command goes out again now. */
    private void becomeReady() {
        ready = true;
        connecting = false;
        long now = System.nanoTime();
        for (LocalCommand cmd : outbox.values()) {
            cmd.nextSendNanos = now;
        }
    }

    private synchronized void onDisconnected(int gen) {
        if (gen == generation && (ready || connecting)) {
            if (ready) {
                counters.linksLost.increment();
            }
            retryConnectLater();
        }
    }

    private void retryConnectLater() {
        ready = false;
        connecting = false;
        nextConnectNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200 + ThreadLocalRandom.current().nextInt(600));
    }

    /** A receipt arrived (on the MQTT client's thread). */
    synchronized void receive(byte[] bytes) {
        counters.receipts.increment();
        JsonNode r;
        try {
            r = JSON.readTree(bytes);
        } catch (IOException e) {
            anomalies.add("receipt is not JSON: " + new String(bytes, StandardCharsets.UTF_8));
            return;
        }
        String commandId = r.path("commandId").asText(null);
        LocalCommand c = commandId == null ? null : outbox.get(commandId);
        if (c == null) {
            anomalies.add("receipt for a command this device never sent: " + r);
            return;
        }
        if (!c.sha256.equals(r.path("payloadSha256").asText())) {
            anomalies.add("receipt names other payload bytes than the command's: " + r);
        }
        if (r.path("replayed").asBoolean()) {
            counters.replayed.increment();
        }
        String status = r.path("status").asText();
        boolean isFinal = r.path("final").asBoolean();
        boolean shouldBeFinal = !status.equals("stored") && !status.equals("retry_later");
        if (isFinal != shouldBeFinal) {
            anomalies.add("receipt status " + status + " with final=" + isFinal + ": " + r);
        }
        if (r.hasNonNull("sequence")) {
            long sequence = r.get("sequence").asLong();
            if (c.sequence >= 0 && c.sequence != sequence) {
                anomalies.add(commandId + " got sequence " + sequence + " after " + c.sequence + ": stored twice?");
            }
            c.sequence = sequence;
        }
        switch (status) {
            case "stored" -> c.stored = true;
            case "retry_later" -> {
                counters.retryLater(r.path("code").asText("(none)"));
                long after = r.path("retryAfterMs").asLong(1000);
                // a patient device would wait all of it; capped so that a test run ends in its time
                c.nextSendNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.min(after, 10_000));
            }
            case "accepted", "duplicate", "rejected" -> {
                c.stored = true;
                if (c.finalStatus == null) {
                    c.finalStatus = status;
                    c.finalReceipt = r;
                } else if (!c.finalStatus.equals(status)) {
                    anomalies.add(commandId + " got final " + status + " after final " + c.finalStatus);
                }
            }
            default -> anomalies.add("receipt with an unknown status: " + r);
        }
    }

    synchronized long openCount() {
        return outbox.values().stream().filter(LocalCommand::open).count();
    }

    synchronized boolean allFinal() {
        return outbox.size() == toCreate && outbox.values().stream().noneMatch(LocalCommand::open);
    }

    synchronized boolean isReady() {
        return ready;
    }

    /** A copy of the device's outbox, in creation order. */
    synchronized List<LocalCommand> commands() {
        return List.copyOf(outbox.values());
    }

    synchronized List<Connack> connacks() {
        return List.copyOf(connacks);
    }

    synchronized List<String> anomalies() {
        return List.copyOf(anomalies);
    }

    synchronized void close() {
        generation++;
        ready = false;
        if (client != null) {
            client.disconnect();
        }
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
