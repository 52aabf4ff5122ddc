package org.edgebridge.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23 point 3: central sends the headers, then its body one byte every 5 s. JDK 17's request timeout stops at
 * the headers; the bridge's {@code ingest.timeout} (30 s, the shipped default) bounds the whole exchange.
 */
class SlowReplyIT {
    @TempDir
    Path dir;

    @Test
    void a_reply_that_trickles_in_fails_at_the_deadline_and_the_command_goes_through_on_the_next_request()
            throws Exception {
        try (HostileSite site = new HostileSite(dir)) {
            site.central.then(HostileCentral.trickle(Duration.ofSeconds(5)));
            DeviceSimulator device = site.device("dev-slow");
            device.publish("workorder/arrive", DeviceSimulator.command("SLOW-1", ""));

            await().atMost(Duration.ofSeconds(90))
                    .until(() -> HostileSite.statuses(device, "SLOW-1").contains("accepted"));
            assertThat(site.central.requests()).hasSizeGreaterThanOrEqualTo(2);
            assertThat(site.status().path("forwarder").path("lastError").asText())
                    .contains("timeout after 30000 ms (ingest.timeout)");
            assertThat(site.status()
                            .path("forwarder")
                            .path("cutReplies")
                            .path("deadline")
                            .asLong())
                    .isEqualTo(1);
            assertThat(site.metrics()).contains("edgebridge_forwarder_replies_cut_total{reason=\"deadline\"} 1.0");
            // the bridge closed the trickling connection: central's next byte found it gone
            await().atMost(Duration.ofSeconds(30)).until(() -> site.central.cutOffByBridge() >= 1);
            device.close();
        }
    }
}
