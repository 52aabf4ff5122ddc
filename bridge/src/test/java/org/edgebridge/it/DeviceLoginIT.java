package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.hivemq.client.mqtt.mqtt3.exceptions.Mqtt3ConnAckException;
import com.hivemq.client.mqtt.mqtt3.message.connect.connack.Mqtt3ConnAckReturnCode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.edgebridge.bench.RawMqttClient;
import org.edgebridge.broker.PasswordFile;
import org.edgebridge.central.Inbox;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * What a hostile client can try at CONNECT: a Last Will on someone else's topic, a registered client id without its
 * credentials, password guessing (and its cost to the devices that are connected), and text that would forge log
 * lines. Real sockets; the HiveMQ client where a library can say it, raw MQTT bytes where no library would.
 */
class DeviceLoginIT {
    @TempDir
    Path dir;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static int connect(TestSite site, RawMqttClient.Connect c) throws Exception {
        try (RawMqttClient client = new RawMqttClient("127.0.0.1", site.mqttPort)) {
            return client.connect(c);
        }
    }

    private Path passwords(String... idUserPassword) throws Exception {
        Path file = dir.resolve("devices.passwd");
        for (int i = 0; i < idUserPassword.length; i += 3) {
            PasswordFile.addDevice(file, idUserPassword[i], idUserPassword[i + 1], idUserPassword[i + 2]);
        }
        return file;
    }

    @Test
    void a_will_on_any_topic_but_the_devices_own_command_topics_is_refused_with_connack_5_and_forges_nothing()
            throws Exception {
        String forged = "{\"commandId\":\"REAL-1\",\"status\":\"accepted\",\"final\":true,\"sequence\":1}";
        try (TestSite site = new TestSite(dir.resolve("data"));
                DeviceSimulator victim = site.device("dev-b")) {
            victim.connectAndSubscribe();
            for (String willTopic : List.of(
                    "devices/dev-b/receipts",
                    "devices/dev-a/receipts",
                    "devices/dev-b/commands/x",
                    "devices/+/receipts",
                    "elsewhere")) {
                assertThat(connect(
                                site,
                                RawMqttClient.Connect.of("dev-a").persistent().withWill(willTopic, bytes(forged))))
                        .as("will on " + willTopic)
                        .isEqualTo(5);
            }
            DeviceSimulator forger = site.deviceWith("dev-a")
                    .will("devices/dev-b/receipts", bytes(forged))
                    .build();
            assertThatThrownBy(forger::connect)
                    .hasCauseInstanceOf(Mqtt3ConnAckException.class)
                    .satisfies(e -> assertThat(((Mqtt3ConnAckException) e.getCause())
                                    .getMqttMessage()
                                    .getReturnCode())
                            .isEqualTo(Mqtt3ConnAckReturnCode.NOT_AUTHORIZED));

            victim.publish("workorder/arrive", DeviceSimulator.command("REAL-1", ""));
            assertThat(victim.awaitFinal("REAL-1").path("status").asText()).isEqualTo("accepted");
            assertThat(victim.receiptsFor("REAL-1"))
                    .allSatisfy(r -> assertThat(r.has("payloadSha256")).isTrue());
            assertThat(site.central.inbox().entries())
                    .extracting(Inbox.Entry::deviceId)
                    .containsOnly("dev-b");
        }
    }

    @Test
    void
            a_will_on_the_devices_own_command_topic_is_stored_as_its_command_when_the_link_breaks_but_not_after_disconnect()
                    throws Exception {
        String will = DeviceSimulator.command("WILL-1", "\"state\":\"offline\"");
        String discarded = DeviceSimulator.command("WILL-2", "\"state\":\"offline\"");
        try (TestSite site = new TestSite(dir.resolve("data"))) {
            RawMqttClient broken = new RawMqttClient("127.0.0.1", site.mqttPort);
            assertThat(broken.connect(RawMqttClient.Connect.of("dev-w")
                            .persistent()
                            .withWill("devices/dev-w/commands/status/offline", bytes(will))))
                    .isZero();
            broken.abort();
            await().atMost(DeviceSimulator.WAIT)
                    .until(() -> site.central.inbox().entries().stream()
                            .anyMatch(e ->
                                    e.deviceId().equals("dev-w") && e.eventId().equals("WILL-1")));

            try (DeviceSimulator device = site.device("dev-w")) {
                device.connectAndSubscribe();
                device.publish("status/offline", will);
                JsonNode receipt = device.awaitFinal("WILL-1");
                assertThat(receipt.path("status").asText()).isEqualTo("accepted");
                assertThat(site.central.inbox().entries())
                        .filteredOn(e -> e.eventId().equals("WILL-1"))
                        .singleElement()
                        .satisfies(e -> assertThat(e.deliveries()).isEqualTo(1));
            }

            RawMqttClient polite = new RawMqttClient("127.0.0.1", site.mqttPort);
            assertThat(polite.connect(RawMqttClient.Connect.of("dev-v")
                            .withWill("devices/dev-v/commands/status/offline", bytes(discarded))))
                    .isZero();
            polite.disconnect();
            try (DeviceSimulator device = site.device("dev-v")) {
                device.connectAndSubscribe();
                device.publish("t", DeviceSimulator.command("AFTER-DISCONNECT", ""));
                device.awaitFinal("AFTER-DISCONNECT");
            }
            assertThat(site.central.inbox().entries())
                    .extracting(Inbox.Entry::eventId)
                    .doesNotContain("WILL-2");
            assertThat(site.getJson("/api/status").toString()).isNotEmpty();
            assertThat(site.get("/metrics").body()).contains("edgebridge_broker_wills_total 1.0");
        }
    }

    @Test
    void a_registered_client_id_needs_its_credentials_even_with_anonymous_access_on() throws Exception {
        Path file = passwords("dev-reg", "user-reg", "s3cret-reg");
        try (TestSite site = new TestSite(dir.resolve("data"), "auth.anonymous=true", "auth.passwordFile=" + file);
                DeviceSimulator real = site.deviceWith("dev-reg")
                        .credentials("user-reg", "s3cret-reg")
                        .build();
                DeviceSimulator impostor = site.device("dev-reg");
                DeviceSimulator stranger = site.device("dev-anon")) {
            real.connectAndSubscribe();
            assertThatThrownBy(impostor::connectAndSubscribe)
                    .hasCauseInstanceOf(Mqtt3ConnAckException.class)
                    .satisfies(e -> assertThat(((Mqtt3ConnAckException) e.getCause())
                                    .getMqttMessage()
                                    .getReturnCode())
                            .isEqualTo(Mqtt3ConnAckReturnCode.BAD_USER_NAME_OR_PASSWORD));
            assertThat(connect(site, RawMqttClient.Connect.of("dev-reg").persistent()))
                    .isEqualTo(4);
            try (RawMqttClient sneaky = new RawMqttClient("127.0.0.1", site.mqttPort)) {
                assertThat(sneaky.connect(RawMqttClient.Connect.of("dev-junk")))
                        .as("an unregistered id may connect")
                        .isZero();
                int second;
                try {
                    second = sneaky.connect(RawMqttClient.Connect.of("dev-reg")
                            .persistent()
                            .withWill("devices/dev-reg/receipts", bytes("{\"status\":\"accepted\",\"final\":true}")));
                } catch (java.io.IOException e) {
                    second = -1;
                }
                assertThat(second)
                        .as("a second CONNECT on one connection closes it (MQTT 3.1.1 §3.1.0-2)")
                        .isEqualTo(-1);
            }
            assertThat(real.isConnected())
                    .as("the real device was not taken over")
                    .isTrue();
            real.publish("t", DeviceSimulator.command("REG-1", ""));
            assertThat(real.awaitFinal("REG-1").path("status").asText()).isEqualTo("accepted");

            stranger.connectAndSubscribe();
            stranger.publish("t", DeviceSimulator.command("ANON-1", ""));
            assertThat(stranger.awaitFinal("ANON-1").path("status").asText()).isEqualTo("accepted");
            JsonNode devices = site.getJson("/api/devices").path("devices");
            for (JsonNode d : devices) {
                if (d.path("clientId").asText().equals("dev-reg")) {
                    assertThat(d.path("takeovers").asLong()).isZero();
                }
            }
            assertThat(site.central.inbox().entries())
                    .extracting(Inbox.Entry::eventId)
                    .containsExactlyInAnyOrder("REG-1", "ANON-1");
        }
    }

    @Test
    void failed_logins_throttle_the_client_id_and_the_address_but_not_a_device_that_proved_its_password()
            throws Exception {
        Path file = passwords("dev-p", "user-p", "pw-p", "dev-q", "user-q", "pw-q", "dev-r", "user-r", "pw-r");
        try (TestSite site = new TestSite(
                dir.resolve("data"),
                "auth.anonymous=false",
                "auth.passwordFile=" + file,
                "auth.failedLoginsPerClientId=3",
                "auth.failedLoginsPerAddress=6")) {
            RawMqttClient.Connect q = RawMqttClient.Connect.of("dev-q").withCredentials("user-q", "pw-q");
            assertThat(connect(site, q)).as("dev-q proves its password").isZero();
            for (int i = 0; i < 3; i++) {
                assertThat(connect(site, RawMqttClient.Connect.of("dev-p").withCredentials("user-p", "guess-" + i)))
                        .isEqualTo(4);
            }
            assertThat(connect(site, RawMqttClient.Connect.of("dev-p").withCredentials("user-p", "pw-p")))
                    .as("dev-p is throttled, right password or not")
                    .isEqualTo(3);
            for (int i = 0; i < 3; i++) {
                assertThat(connect(site, RawMqttClient.Connect.of("nobody-" + i).withCredentials("user-x", "guess")))
                        .isEqualTo(4);
            }
            assertThat(connect(site, RawMqttClient.Connect.of("dev-r").withCredentials("user-r", "pw-r")))
                    .as("the address is throttled")
                    .isEqualTo(3);
            assertThat(connect(site, q))
                    .as("a device that proved its password is not locked out by guesses")
                    .isZero();
            assertThat(site.get("/metrics").body())
                    .contains("edgebridge_broker_logins_refused_total{reason=\"credentials\"} 6.0")
                    .contains("edgebridge_broker_logins_refused_total{reason=\"throttled\"} 2.0");
        }
    }

    @Test
    void a_password_guessing_flood_gets_connack_3_past_the_check_queue_while_connected_devices_carry_on()
            throws Exception {
        Path file = passwords("dev-good", "user-good", "pw-good", "dev-ping", "user-ping", "pw-ping");
        try (TestSite site = new TestSite(
                        dir.resolve("data"),
                        "auth.anonymous=false",
                        "auth.passwordFile=" + file,
                        "auth.threads=1",
                        "auth.queue=2",
                        "auth.failedLoginsPerClientId=1000000",
                        "auth.failedLoginsPerAddress=1000000");
                DeviceSimulator device = site.deviceWith("dev-good")
                        .credentials("user-good", "pw-good")
                        .build();
                RawMqttClient pinger = new RawMqttClient("127.0.0.1", site.mqttPort)) {
            device.connectAndSubscribe();
            assertThat(pinger.connect(RawMqttClient.Connect.of("dev-ping").withCredentials("user-ping", "pw-ping")))
                    .isZero();
            Map<Integer, AtomicInteger> codes = new ConcurrentHashMap<>();
            List<Thread> attackers = new ArrayList<>();
            for (int a = 0; a < 16; a++) {
                Thread t = new Thread(
                        () -> {
                            for (int i = 0; i < 10; i++) {
                                try (RawMqttClient c = new RawMqttClient("127.0.0.1", site.mqttPort)) {
                                    int code = c.connect(RawMqttClient.Connect.of("dev-good")
                                            .withCredentials("user-good", "guess-" + i));
                                    codes.computeIfAbsent(code, k -> new AtomicInteger())
                                            .incrementAndGet();
                                } catch (Exception e) {
                                    codes.computeIfAbsent(-2, k -> new AtomicInteger())
                                            .incrementAndGet();
                                }
                            }
                        },
                        "attacker-" + a);
                t.start();
                attackers.add(t);
            }
            int pings = 0;
            for (int i = 1; i <= 10; i++) {
                device.publish("t", DeviceSimulator.command("DURING-FLOOD-" + i, ""));
                pinger.ping();
                pings++;
            }
            for (int i = 1; i <= 10; i++) {
                assertThat(device.awaitFinal("DURING-FLOOD-" + i).path("status").asText())
                        .isEqualTo("accepted");
            }
            for (Thread t : attackers) {
                t.join(TimeUnit.MINUTES.toMillis(2));
            }
            assertThat(pings).isEqualTo(10);
            assertThat(codes.keySet())
                    .as("every guess answered with 4, or 3 past the queue: %s", codes)
                    .containsOnly(3, 4);
            assertThat(codes.get(3).get())
                    .as("guesses refused because the check queue was full")
                    .isPositive();
            assertThat(codes.values().stream().mapToInt(AtomicInteger::get).sum())
                    .isEqualTo(160);
            assertThat(device.isConnected()).isTrue();
        }
    }

    @Test
    void text_a_client_sends_is_escaped_in_the_log_and_refusals_are_logged_once_a_minute_per_client_id()
            throws Exception {
        Logger brokerLog = (Logger) LoggerFactory.getLogger("org.edgebridge.broker.Broker");
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        brokerLog.addAppender(lines);
        Path file = passwords("dev-p", "user-p", "pw-p");
        try (TestSite site = new TestSite(
                dir.resolve("data"),
                "auth.anonymous=false",
                "auth.passwordFile=" + file,
                "auth.failedLoginsPerClientId=1000")) {
            for (int i = 0; i < 20; i++) {
                assertThat(connect(
                                site,
                                RawMqttClient.Connect.of("evil/\n12:00:00.000 INFO  [main] forged - admin logged in")))
                        .isEqualTo(2);
                assertThat(connect(
                                site, RawMqttClient.Connect.of("dev-p").withCredentials("user-p\r\nforged", "guess")))
                        .isEqualTo(4);
            }
        } finally {
            brokerLog.detachAppender(lines);
        }
        List<String> messages =
                lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
        assertThat(messages).noneMatch(m -> m.contains("\n") || m.contains("\r"));
        assertThat(messages.stream().filter(m -> m.contains("CONNACK 2")).toList())
                .hasSize(1)
                .allSatisfy(m -> assertThat(m).contains("\\u000a12:00:00.000 INFO"));
        assertThat(messages.stream().filter(m -> m.contains("CONNACK 4")).toList())
                .hasSize(1)
                .allSatisfy(m -> assertThat(m).contains("user-p\\u000d\\u000aforged"));
    }

    @Test
    void device_add_list_and_remove_handle_a_client_id_with_colons_that_then_connects() throws Exception {
        Path file = dir.resolve("site.passwd");
        assertThat(cli(
                                "device",
                                "add",
                                "--file",
                                file.toString(),
                                "--client-id",
                                "site:07:node",
                                "--username",
                                "node-07",
                                "--password",
                                "pw-07")
                        .exit())
                .isZero();
        assertThat(cli(
                                "device",
                                "add",
                                "--file",
                                file.toString(),
                                "--client-id",
                                "site",
                                "--username",
                                "site",
                                "--password",
                                "pw-site")
                        .exit())
                .isZero();
        Cli list = cli("device", "list", "--file", file.toString());
        assertThat(list.exit()).isZero();
        assertThat(list.out()).contains("site:07:node\tnode-07", "site\tsite", "2 registered device(s)");
        try (TestSite site = new TestSite(dir.resolve("data"), "auth.anonymous=false", "auth.passwordFile=" + file);
                DeviceSimulator device = site.deviceWith("site:07:node")
                        .credentials("node-07", "pw-07")
                        .build()) {
            device.connectAndSubscribe();
            device.publish("t", DeviceSimulator.command("COLON-1", ""));
            assertThat(device.awaitFinal("COLON-1").path("status").asText()).isEqualTo("accepted");
        }
        assertThat(cli("device", "remove", "--file", file.toString(), "--client-id", "site")
                        .exit())
                .isZero();
        assertThat(cli("device", "list", "--file", file.toString()).out())
                .contains("site:07:node\tnode-07")
                .doesNotContain("site\tsite");
        Cli again = cli("device", "remove", "--file", file.toString(), "--client-id", "site");
        assertThat(again.exit()).isEqualTo(1);
        assertThat(again.out()).contains("not registered");
    }

    private record Cli(int exit, String out) {}

    private static Cli cli(String... args) throws Exception {
        List<String> command = new ArrayList<>(BridgeJar.command("256m", List.of()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new Cli(p.exitValue(), out);
    }
}
