package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.edgebridge.bench.RawMqttClient;
import org.edgebridge.broker.PasswordFile;
import org.edgebridge.central.CentralSim;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 40, point 5: a password-check flood. Attempts were counted only after each PBKDF2 run, so one address could
 * queue 256 checks at once, and 20 addresses that each keep 16 CONNECTs with a wrong password waiting kept the
 * queue ({@code auth.queue}, 256) full: a registered device not in the verified cache (after a restart: every
 * device) got CONNACK 3. Now checks are counted when queued, at most {@code auth.queuePerAddress} (8) per address
 * (20 addresses hold at most 160 places), and a client id whose password was verified before, also before a
 * restart, waits in a lane of its own, served first: the device gets its CONNACK 0. A real bridge process
 * restarted on its data dir, the shipped defaults, raw CONNECTs from 127.0.0.10-29.
 */
class LoginFloodIT {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final int ADDRESSES = 20;
    private static final int WAITING_PER_ADDRESS = 16;
    private static final RawMqttClient.Connect DEVICE =
            RawMqttClient.Connect.of("field-node-1").withCredentials("node1", "node1-secret");

    @TempDir
    Path dir;

    @Test
    void twenty_addresses_flooding_password_checks_leave_a_registered_device_its_connack_0() throws Exception {
        Path passwords = dir.resolve("passwords");
        PasswordFile.addDevice(passwords, "field-node-1", "node1", "node1-secret");
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger sent = new AtomicInteger();
        List<Thread> flood = new ArrayList<>();
        try (CentralSim central = TestSite.central(Optional.empty(), 1 << 24)) {
            String[] sets = {
                "data.dir=" + dir.resolve("data"),
                "mqtt.host=127.0.0.1",
                "auth.passwordFile=" + passwords,
                "ingest.url=http://127.0.0.1:" + central.port() + "/ingest"
            };
            try (BridgeProcess first = new BridgeProcess(BridgeProcess.logFile("login-flood"), sets).start();
                    RawMqttClient device = new RawMqttClient("127.0.0.1", first.mqttPort())) {
                assertThat(device.connect(DEVICE))
                        .as("the device's first login")
                        .isZero();
                first.stop();
            }
            // a restart: the verified cache is empty, every device needs a PBKDF2 run again
            try (BridgeProcess bridge = new BridgeProcess(BridgeProcess.logFile("login-flood"), sets).start()) {
                for (int a = 0; a < ADDRESSES; a++) {
                    InetAddress from = InetAddress.getByName("127.0.0." + (10 + a));
                    Thread t = new Thread(() -> floodFrom(from, bridge.mqttPort(), stop, sent), "login-flood-" + a);
                    t.setDaemon(true);
                    t.start();
                    flood.add(t);
                }
                await().atMost(Duration.ofSeconds(20)).until(() -> sent.get() >= ADDRESSES * WAITING_PER_ADDRESS);
                try (RawMqttClient device = new RawMqttClient("127.0.0.1", bridge.mqttPort())) {
                    assertThat(device.connect(DEVICE))
                            .as("CONNACK of the registered device during the flood")
                            .isZero();
                }
                assertThat(get(bridge, "/metrics"))
                        .containsPattern("edgebridge_broker_logins_refused_total\\{reason=\"busy_address\"\\} [1-9]");
            } finally {
                stop.set(true);
                for (Thread t : flood) {
                    t.join(30_000);
                }
            }
        }
    }

    /** Keeps {@value #WAITING_PER_ADDRESS} CONNECTs with a wrong password waiting from one address, round after round. */
    private static void floodFrom(InetAddress from, int port, AtomicBoolean stop, AtomicInteger sent) {
        byte[] connect = connect("stranger-" + from.getHostAddress(), "nobody", "wrong-password");
        while (!stop.get()) {
            List<Socket> round = new ArrayList<>();
            try {
                for (int i = 0; i < WAITING_PER_ADDRESS; i++) {
                    Socket s = new Socket(InetAddress.getByName("127.0.0.1"), port, from, 0);
                    s.setSoTimeout(60_000);
                    round.add(s);
                    s.getOutputStream().write(connect);
                    sent.incrementAndGet();
                }
                for (Socket s : round) {
                    InputStream in = s.getInputStream();
                    in.readNBytes(4); // the CONNACK, or the end of the stream
                }
            } catch (IOException e) {
                // refused or closed: the next round
            } finally {
                for (Socket s : round) {
                    try {
                        s.close();
                    } catch (IOException ignored) {
                        // closed already
                    }
                }
            }
        }
    }

    /** An MQTT 3.1.1 CONNECT with a username and password. */
    private static byte[] connect(String clientId, String username, String password) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(new byte[] {0, 4, 'M', 'Q', 'T', 'T', 4, (byte) 0xC2, 0, 60});
        for (String field : List.of(clientId, username, password)) {
            byte[] b = field.getBytes(StandardCharsets.UTF_8);
            body.write(b.length >> 8);
            body.write(b.length & 0xff);
            body.writeBytes(b);
        }
        ByteArrayOutputStream packet = new ByteArrayOutputStream();
        packet.write(0x10);
        packet.write(body.size());
        packet.writeBytes(body.toByteArray());
        return packet.toByteArray();
    }

    private static String get(BridgeProcess bridge, String path) throws Exception {
        return HTTP.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + bridge.adminPort() + path))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }
}
