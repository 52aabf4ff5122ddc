package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import org.edgebridge.central.Inbox;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ingest.proxy through a real tinyproxy: commands reach central through it; a proxy down or refusing loses nothing and says so. */
class ProxyIT {
    @TempDir
    Path dir;

    @BeforeEach
    void needsTinyproxy() {
        TinyProxy.requireInstalled();
    }

    @Test
    void through_the_proxy_every_command_reaches_central_once() throws Exception {
        try (TinyProxy proxy = TinyProxy.start(dir.resolve("proxy"), Ports.freeOutsideEphemeralRange(), true);
                TestSite site = new TestSite(dir.resolve("data"), "ingest.proxy=http://127.0.0.1:" + proxy.port);
                DeviceSimulator device = site.device("dev-proxy")) {
            device.connectAndSubscribe();
            List<String> ids = List.of("PROXY-1", "PROXY-2", "PROXY-3");
            ids.forEach(id -> publish(device, id));
            for (String id : ids) {
                assertThat(device.awaitFinal(id).path("status").asText()).isEqualTo("accepted");
            }
            assertThat(site.central.inbox().entries())
                    .extracting(Inbox.Entry::eventId)
                    .containsExactlyElementsOf(ids);
            assertThat(site.central.inbox().entries())
                    .allSatisfy(e -> assertThat(e.deliveries()).isEqualTo(1));
            assertThat(site.getJson("/api/status").path("central").path("proxy").asText())
                    .isEqualTo("http://127.0.0.1:" + proxy.port);
            assertThat(proxy.logText())
                    .as("the requests went through the proxy")
                    .contains("POST http://127.0.0.1:" + site.centralPort + "/ingest");
        }
    }

    @Test
    void a_proxy_that_is_down_loses_nothing_names_the_proxy_and_forwarding_resumes_when_it_is_back() throws Exception {
        int port = Ports.freeOutsideEphemeralRange();
        try (TestSite site = new TestSite(dir.resolve("data"), "ingest.proxy=http://127.0.0.1:" + port);
                DeviceSimulator device = site.device("dev-proxy-down")) {
            device.connectAndSubscribe();
            publish(device, "DOWN-1");
            device.awaitReceipt("DOWN-1", "stored");
            await().atMost(DeviceSimulator.WAIT)
                    .until(() -> lastError(site).contains("ingest.proxy 127.0.0.1:" + port));
            assertThat(lastError(site)).contains("refused (nothing listens there: check ingest.proxy)");
            assertThat(site.central.inbox().size()).isZero();
            try (TinyProxy proxy = TinyProxy.start(dir.resolve("proxy"), port, true)) {
                assertThat(device.awaitFinal("DOWN-1").path("status").asText()).isEqualTo("accepted");
                assertThat(site.central.inbox().entries())
                        .singleElement()
                        .satisfies(e -> assertThat(e.deliveries()).isEqualTo(1));
            }
        }
    }

    @Test
    void a_proxy_that_refuses_this_box_loses_nothing_and_the_status_says_403() throws Exception {
        try (TinyProxy proxy = TinyProxy.start(dir.resolve("proxy"), Ports.freeOutsideEphemeralRange(), false);
                TestSite site = new TestSite(dir.resolve("data"), "ingest.proxy=http://127.0.0.1:" + proxy.port);
                DeviceSimulator device = site.device("dev-proxy-403")) {
            device.connectAndSubscribe();
            publish(device, "REFUSED-1");
            device.awaitReceipt("REFUSED-1", "stored");
            await().atMost(DeviceSimulator.WAIT).until(() -> lastError(site).contains("403"));
            JsonNode status = site.getJson("/api/status");
            assertThat(status.path("outbox").path("open").asLong())
                    .as("kept in the outbox, not parked or dropped")
                    .isEqualTo(1);
            assertThat(site.central.inbox().size()).isZero();
            assertThat(device.receipts())
                    .allSatisfy(r -> assertThat(r.path("final").asBoolean()).isFalse());
        }
    }

    @Test
    void an_https_central_is_asked_for_with_connect_and_a_tunnel_the_proxy_refuses_loses_nothing_and_says_so()
            throws Exception {
        // nothing listens at central's port: the open proxy takes the CONNECT, cannot reach central, and answers 500.
        // Below the ephemeral range: a port from Ports.free() can be handed to a listener started meanwhile (this
        // site's central) or to the proxy's own retry, which then connects to itself.
        String target = "127.0.0.1:" + Ports.freeOutsideEphemeralRange();
        assertThat(tunnelFailure(true, "open", target)).contains("(Tunnel failed, got: 500)");
        assertThat(tunnelFailure(false, "refusing", target)).contains("(Tunnel failed, got: 403)");
    }

    /** The forwarder's lastError once a command is stored for an https:// central at {@code target} behind tinyproxy. */
    private String tunnelFailure(boolean admitLoopback, String name, String target) throws Exception {
        try (TinyProxy proxy = TinyProxy.start(dir.resolve(name), Ports.freeOutsideEphemeralRange(), admitLoopback);
                TestSite site = new TestSite(
                        dir.resolve(name + "-data"),
                        "ingest.proxy=http://127.0.0.1:" + proxy.port,
                        "ingest.url=https://" + target + "/ingest");
                DeviceSimulator device = site.device("dev-tunnel-" + name)) {
            device.connectAndSubscribe();
            publish(device, "TUNNEL-" + name);
            device.awaitReceipt("TUNNEL-" + name, "stored");
            String expected = "ingest.proxy 127.0.0.1:" + proxy.port + " did not open the CONNECT tunnel to " + target;
            await("lastError says: " + expected)
                    .atMost(DeviceSimulator.WAIT)
                    .untilAsserted(() -> assertThat(lastError(site)).contains(expected));
            if (admitLoopback) {
                assertThat(proxy.logText()).contains("CONNECT " + target);
            }
            assertThat(site.getJson("/api/status").path("outbox").path("open").asLong())
                    .as("kept in the outbox")
                    .isEqualTo(1);
            return lastError(site);
        }
    }

    private static void publish(DeviceSimulator device, String id) {
        device.publish("workorder/arrive", DeviceSimulator.command(id, "\"action\":\"ARRIVE\""));
    }

    private static String lastError(TestSite site) throws Exception {
        return site.getJson("/api/status").path("forwarder").path("lastError").asText("");
    }
}
