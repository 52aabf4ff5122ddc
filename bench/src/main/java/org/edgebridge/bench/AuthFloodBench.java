package org.edgebridge.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.edgebridge.Bridge;
import org.edgebridge.broker.PasswordFile;
import org.edgebridge.config.ConfigLoader;

/**
 * B6: what a password-guessing flood costs the devices that are connected. One registered device stays connected
 * and sends PINGREQ every 10 ms; first alone, then while {@code attackers} clients send CONNECTs with wrong
 * passwords as fast as they are answered (the throttles lifted, so every guess costs a PBKDF2 run: the worst case,
 * e.g. guesses from many addresses). Also the time to a CONNACK for an unknown username against a wrong password
 * of a known one: they should be alike, so that timing does not tell which usernames exist.
 */
final class AuthFloodBench {
    private static final String DEVICE = "b6-device";
    private static final String PASSWORD = "b6-right-password";

    private final Path work;
    private final int attackers;
    private final int seconds;

    AuthFloodBench(Path work, int attackers, int seconds) {
        this.work = work;
        this.attackers = attackers;
        this.seconds = seconds;
    }

    void run(Map<String, Object> results) throws Exception {
        Path dir = Files.createDirectories(work.resolve("b6"));
        Path passwords = dir.resolve("devices.passwd");
        PasswordFile.addDevice(passwords, DEVICE, DEVICE, PASSWORD);
        int port = Bench.freePort();
        try (Bridge bridge = Bridge.start(
                        ConfigLoader.load(
                                null,
                                List.of(
                                        "data.dir=" + dir.resolve("data"),
                                        "mqtt.host=127.0.0.1",
                                        "mqtt.port=" + port,
                                        "admin.port=0",
                                        "auth.anonymous=false",
                                        "auth.passwordFile=" + passwords,
                                        "auth.failedLoginsPerClientId=1000000",
                                        "auth.failedLoginsPerAddress=1000000",
                                        "ingest.url=http://127.0.0.1:9/ingest")),
                        Clock.systemUTC());
                RawMqttClient device = new RawMqttClient("127.0.0.1", port)) {
            if (device.connect(RawMqttClient.Connect.of(DEVICE).withCredentials(DEVICE, PASSWORD)) != 0) {
                throw new IllegalStateException("the bench device was refused");
            }
            results.put("b6_wrong_username_connack_ms", connackMillis(port, "no-such-user", 20));
            results.put("b6_wrong_password_connack_ms", connackMillis(port, DEVICE, 20));
            List<Double> idle = pings(device, seconds);
            AtomicBoolean flooding = new AtomicBoolean(true);
            AtomicLong attempts = new AtomicLong();
            AtomicLong busy = new AtomicLong();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < attackers; i++) {
                Thread t = new Thread(
                        () -> {
                            while (flooding.get()) {
                                try (RawMqttClient attacker = new RawMqttClient("127.0.0.1", port)) {
                                    int code = attacker.connect(
                                            RawMqttClient.Connect.of(DEVICE).withCredentials(DEVICE, "guess"));
                                    attempts.incrementAndGet();
                                    if (code == 3) {
                                        busy.incrementAndGet();
                                    }
                                } catch (Exception e) {
                                    attempts.incrementAndGet();
                                }
                            }
                        },
                        "b6-attacker-" + i);
                t.start();
                threads.add(t);
            }
            long start = System.nanoTime();
            List<Double> flood = pings(device, seconds);
            double elapsed = (System.nanoTime() - start) / 1e9;
            flooding.set(false);
            for (Thread t : threads) {
                t.join();
            }
            results.put("b6_attackers", attackers);
            results.put("b6_ping_p50_ms_idle", Bench.percentile(idle, 50));
            results.put("b6_ping_p99_ms_idle", Bench.percentile(idle, 99));
            results.put("b6_ping_p50_ms_flood", Bench.percentile(flood, 50));
            results.put("b6_ping_p99_ms_flood", Bench.percentile(flood, 99));
            results.put("b6_ping_max_ms_flood", Bench.percentile(flood, 100));
            results.put("b6_guesses_per_s", Math.round(attempts.get() / elapsed * 10) / 10.0);
            results.put("b6_guesses_refused_busy", busy.get());
        }
    }

    /** Median time from CONNECT to CONNACK for a wrong password under {@code username}. */
    private static Double connackMillis(int port, String username, int tries) throws Exception {
        List<Double> times = new ArrayList<>();
        for (int i = 0; i < tries; i++) {
            try (RawMqttClient c = new RawMqttClient("127.0.0.1", port)) {
                long start = System.nanoTime();
                c.connect(RawMqttClient.Connect.of(DEVICE).withCredentials(username, "wrong-" + i));
                times.add((System.nanoTime() - start) / 1e6);
            }
        }
        return Bench.percentile(times, 50);
    }

    private static List<Double> pings(RawMqttClient device, int seconds) throws Exception {
        List<Double> rtts = Collections.synchronizedList(new ArrayList<>());
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < end) {
            rtts.add(device.ping() / 1e6);
            Thread.sleep(10);
        }
        return rtts;
    }
}
