package org.edgebridge.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Central drops the connection: before a byte of its reply, and in the middle of a body it declared longer. */
class DroppedReplyIT {
    @TempDir
    Path dir;

    @Test
    void a_connection_dropped_before_or_during_the_reply_fails_the_request_and_the_command_goes_through_afterwards()
            throws Exception {
        try (HostileSite site = new HostileSite(dir)) {
            site.central.then(HostileCentral.drop(), HostileCentral.truncated());
            DeviceSimulator device = site.device("dev-dropped");
            device.publish("workorder/arrive", DeviceSimulator.command("DROP-1", ""));

            await().atMost(Duration.ofSeconds(30))
                    .until(() -> HostileSite.statuses(device, "DROP-1").contains("accepted"));
            assertThat(HostileSite.statuses(device, "DROP-1")).containsExactly("stored", "accepted");
            assertThat(site.central.requests()).hasSize(3);
            assertThat(site.status().path("forwarder").path("lastError").asText())
                    .contains("central unreachable");
            device.close();
        }
    }
}
