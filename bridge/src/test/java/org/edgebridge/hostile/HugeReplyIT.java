package org.edgebridge.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23 point 4: central answers 200 with a 700 MB body. With the shipped {@code ingest.maxReplyBytes} (4 MiB)
 * the request fails at the cap, nothing past it is read, and the bridge goes on.
 */
class HugeReplyIT {
    private static final long SEVEN_HUNDRED_MB = 700L * 1000 * 1000;

    @TempDir
    Path dir;

    @Test
    void a_700_mb_reply_fails_the_request_at_the_cap_whether_or_not_its_length_is_declared() throws Exception {
        try (HostileSite site = new HostileSite(dir)) {
            site.central.then(
                    HostileCentral.huge(SEVEN_HUNDRED_MB, true), HostileCentral.huge(SEVEN_HUNDRED_MB, false));
            DeviceSimulator device = site.device("dev-huge");
            device.publish("workorder/arrive", DeviceSimulator.command("HUGE-1", ""));

            await().atMost(Duration.ofSeconds(60))
                    .until(() -> HostileSite.statuses(device, "HUGE-1").contains("accepted"));
            assertThat(site.central.requests()).hasSize(3);
            assertThat(site.status().path("forwarder").path("lastError").asText())
                    .contains("longer than ingest.maxReplyBytes (4194304 bytes)");
            assertThat(site.status()
                            .path("forwarder")
                            .path("cutReplies")
                            .path("too_large")
                            .asLong())
                    .isEqualTo(2);
            assertThat(site.metrics()).contains("edgebridge_forwarder_replies_cut_total{reason=\"too_large\"} 2.0");
            // what central got onto the wire before the bridge closed the connection: the cap plus socket buffers
            assertThat(site.central.bytesWritten()).isLessThan(64L * 1024 * 1024);
            await().atMost(Duration.ofSeconds(30)).until(() -> site.central.cutOffByBridge() == 2);
            device.close();
        }
    }
}
