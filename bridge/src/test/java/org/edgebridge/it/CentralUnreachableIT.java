package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What an admin reads while central cannot be reached: where, why, and when the next try is, never stale. */
class CentralUnreachableIT {
    @TempDir
    Path dir;

    @Test
    void the_alarm_names_host_port_and_kind_of_failure_and_counts_no_event_as_sent() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        try (TestSite site = new TestSite(
                        dir.resolve("data"),
                        "ingest.url=http://127.0.0.1:" + closed + "/ingest",
                        "forwarder.backoffInitial=2s",
                        "forwarder.backoffMax=2s",
                        "forwarder.breakerOpenFor=2s");
                DeviceSimulator device = site.device("dev-far")) {
            device.connectAndSubscribe();
            device.publish("t", DeviceSimulator.command("FAR-1", ""));
            device.awaitReceipt("FAR-1", "stored");
            await().atMost(DeviceSimulator.WAIT).until(() -> alarm(site) != null);
            String message = alarm(site).path("message").asText();
            assertThat(message)
                    .contains(
                            "connection to 127.0.0.1:" + closed + " refused (nothing listens there: check ingest.url)")
                    .doesNotContain("ConnectException");
            JsonNode forwarder = site.getJson("/api/status").path("forwarder");
            assertThat(forwarder.path("eventsSent").asLong())
                    .as("central received none of them")
                    .isZero();
            assertThat(forwarder.path("requests").asLong()).isGreaterThanOrEqualTo(3);
            await().atMost(DeviceSimulator.WAIT).until(() -> {
                JsonNode a = alarm(site);
                return a != null && a.path("message").asText().contains("next request at");
            });
            String withNext = alarm(site).path("message").asText();
            long inMs = Long.parseLong(withNext.replaceAll(".*next request at \\S+ \\(in (\\d+) ms\\).*", "$1"));
            assertThat(inMs)
                    .as("the wait still ahead, as of the read (backoff 2 s)")
                    .isBetween(0L, 2_000L);
        }
    }

    private static JsonNode alarm(TestSite site) throws Exception {
        for (JsonNode a : site.getJson("/api/status").path("alarms")) {
            if (a.path("code").asText().equals("central_unreachable")) {
                return a;
            }
        }
        return null;
    }
}
