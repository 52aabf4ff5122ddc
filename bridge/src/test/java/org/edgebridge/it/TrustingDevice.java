package org.edgebridge.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.edgebridge.bench.RawMqttClient;
import org.edgebridge.device.DeviceSimulator;

/**
 * A device that trusts the PUBACK, as a plain MQTT client does: it publishes new commands at QoS 1 with at most
 * {@code window} PUBLISHes in flight, forgets each command once its PUBACK comes, and never sends one again (no
 * resend after a lost connection, no receipts read), until its connection ends. Raw bytes on a socket
 * ({@link RawMqttClient}), so that nothing in a library resends behind its back. Two threads: the publisher and the
 * reader.
 */
final class TrustingDevice implements AutoCloseable {
    private final RawMqttClient client;
    private final String clientId;
    private final Semaphore window;
    /** Packet id of a PUBLISH in flight -> its commandId. */
    private final Map<Integer, String> inFlight = new ConcurrentHashMap<>();

    private final Set<String> acked;
    private final AtomicInteger ackedHere = new AtomicInteger();
    private final AtomicInteger sent = new AtomicInteger();
    private final AtomicInteger limit;
    private final Thread publisher;
    private final Thread reader;
    private volatile boolean stopped;
    /** The packet id of a PUBACK for no PUBLISH in flight, if one came (-1: none). */
    private volatile int wrongPuback = -1;

    /**
     * @param acked where the commandId of every PUBACKed command goes
     * @param limit how many commands it may still send, shared by a fleet (decremented per PUBLISH)
     */
    TrustingDevice(String host, int port, String clientId, int window, Set<String> acked, AtomicInteger limit)
            throws IOException {
        this.client = new RawMqttClient(host, port);
        this.clientId = clientId;
        this.window = new Semaphore(window);
        this.acked = acked;
        this.limit = limit;
        int code = client.connect(RawMqttClient.Connect.of(clientId));
        if (code != 0) {
            client.close();
            throw new IOException("CONNECT of " + clientId + " refused: " + code);
        }
        this.reader = new Thread(this::readLoop, "trusting-reader-" + clientId);
        this.publisher = new Thread(this::publishLoop, "trusting-publisher-" + clientId);
        reader.start();
        publisher.start();
    }

    /** PUBACKs this device got. */
    int acked() {
        return ackedHere.get();
    }

    /** PUBLISHes this device sent. */
    int sent() {
        return sent.get();
    }

    /** The packet id of a PUBACK that answered no PUBLISH in flight, or -1 if none came. */
    int wrongPuback() {
        return wrongPuback;
    }

    /** Both threads ended (the connection is gone). */
    boolean isDone() {
        return !publisher.isAlive() && !reader.isAlive();
    }

    private void publishLoop() {
        String topic = "devices/" + clientId + "/commands/op";
        int packetId = 0;
        try {
            for (int n = 1; !stopped && limit.getAndDecrement() > 0; n++) {
                while (!window.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    if (stopped || !reader.isAlive()) {
                        return;
                    }
                }
                packetId = packetId % 65_535 + 1;
                String commandId = clientId + "-" + n;
                inFlight.put(packetId, commandId);
                client.publish(
                        topic,
                        DeviceSimulator.command(commandId, "\"n\":" + n).getBytes(StandardCharsets.UTF_8),
                        1,
                        packetId,
                        false);
                sent.incrementAndGet();
            }
        } catch (IOException e) {
            // the bridge is gone: this device never sends anything again
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void readLoop() {
        try {
            for (RawMqttClient.Packet p = client.readPacket(); p != null && !stopped; p = client.readPacket()) {
                if (p.isPuback()) {
                    String commandId = inFlight.remove(p.packetId());
                    if (commandId == null) {
                        wrongPuback = p.packetId();
                        return;
                    }
                    acked.add(commandId);
                    ackedHere.incrementAndGet();
                    window.release();
                }
            }
        } catch (IOException e) {
            // the connection ended
        } finally {
            client.close();
        }
    }

    @Override
    public void close() {
        stopped = true;
        client.close();
    }
}
