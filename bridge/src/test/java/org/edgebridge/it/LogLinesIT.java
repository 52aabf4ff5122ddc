package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.tls.DevCertificates;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * What an admin reads in the log when devices misbehave (issue 17, item 6): one line from the bridge per event
 * class and client id (rate-limited), at WARN, and nothing from Moquette or Netty; a TLS client that connects and
 * closes leaves no stack trace.
 */
class LogLinesIT {
    @TempDir
    Path dir;

    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    private Logger root;

    @BeforeEach
    void capture() {
        root = ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        lines.start();
        root.addAppender(lines);
    }

    @AfterEach
    void release() {
        root.detachAppender(lines);
    }

    private List<String> warnings() {
        return lines.list.stream()
                .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                .map(e -> e.getLevel() + " " + e.getLoggerName() + " - " + e.getFormattedMessage()
                        + (e.getThrowableProxy() == null
                                ? ""
                                : " [" + e.getThrowableProxy().getClassName() + "]"))
                .toList();
    }

    @Test
    void a_denied_publish_and_a_denied_subscribe_are_one_bridge_line_each_and_nothing_from_moquette() throws Exception {
        try (TestSite site = new TestSite(dir.resolve("data"));
                DeviceSimulator device = site.device("dev-log")) {
            device.connectAndSubscribe();
            for (int i = 0; i < 3; i++) {
                device.subscribe("devices/other/receipts");
            }
            device.publishWithoutWaiting("devices/other/commands/op", "{\"commandId\":\"X-1\"}".getBytes());
            await().atMost(Duration.ofSeconds(10)).until(() -> !device.isConnected());
            device.connectAndSubscribe();
            device.publishWithoutWaiting("devices/other/commands/op", "{\"commandId\":\"X-2\"}".getBytes());
            await().atMost(Duration.ofSeconds(10)).until(() -> !device.isConnected());
            // whatever the broker logs about a connection it logs by the time it has let the connection go
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> site.bridge.broker().status().connectedClients() == 0);
            List<String> w = warnings();
            assertThat(w)
                    .as("log: " + w)
                    .filteredOn(l -> l.contains("refused SUBSCRIBE"))
                    .hasSize(1)
                    .allSatisfy(l -> assertThat(l).startsWith("WARN org.edgebridge"));
            assertThat(w)
                    .as("log: " + w)
                    .filteredOn(l -> l.contains("refused PUBLISH"))
                    .hasSize(1)
                    .allSatisfy(l -> assertThat(l).startsWith("WARN org.edgebridge"));
            assertThat(w)
                    .as("nothing from Moquette or Netty")
                    .noneMatch(l -> l.contains(" io.moquette") || l.contains(" io.netty"));
        }
    }

    @Test
    void a_tls_client_that_closes_leaves_no_stack_trace() throws Exception {
        DevCertificates.Material m = DevCertificates.ensure(dir.resolve("tls"));
        try (TestSite site = new TestSite(
                dir.resolve("data"), "tls.port=any", "tls.certFile=" + m.certFile(), "tls.keyFile=" + m.keyFile())) {
            for (int i = 0; i < 3; i++) {
                try (DeviceSimulator device = DeviceSimulator.builder("dev-tls-" + i, site.tlsPort)
                        .tls(TlsMaterial.client(m.caFile(), null, null))
                        .build()) {
                    device.connectAndSubscribe();
                }
            }
            // and a client nobody here wrote, which closes the TLS connection its own way
            Path rr = Path.of("/usr/bin/mosquitto_rr");
            if (java.nio.file.Files.isExecutable(rr)) {
                Process p = new ProcessBuilder(
                                rr.toString(),
                                "-V",
                                "mqttv311",
                                "-h",
                                "127.0.0.1",
                                "-p",
                                String.valueOf(site.tlsPort),
                                "--cafile",
                                m.caFile().toString(),
                                "-i",
                                "dev-rr",
                                "-c",
                                "-q",
                                "1",
                                "-W",
                                "10",
                                "-e",
                                "devices/dev-rr/receipts",
                                "-t",
                                "devices/dev-rr/commands/op",
                                "-m",
                                "{\"commandId\":\"RR-1\"}")
                        .redirectErrorStream(true)
                        .start();
                assertThat(p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
                assertThat(new String(p.getInputStream().readAllBytes())).contains("\"status\":\"stored\"");
            }
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> site.bridge.broker().status().connectedClients() == 0);
            assertThat(lines.list)
                    .as("log lines with a stack trace: " + warnings())
                    .noneMatch(e -> e.getThrowableProxy() != null);
        }
    }
}
