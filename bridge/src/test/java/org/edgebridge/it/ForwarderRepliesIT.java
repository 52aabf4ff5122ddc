package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.edgebridge.central.CentralSim;
import org.edgebridge.central.Faults;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Central's replies through the whole bridge, with real devices: what a device receives over MQTT. Each kind of reply
 * (docs/protocol.md §2.3) is covered one step at a time on a moved clock by {@code forward.ForwardStepTest} and
 * {@code forward.ForwardStepStatusTest}; what
 * stays here needs the real intake, broker and loop.
 */
class ForwarderRepliesIT {
    @TempDir
    Path dir;

    @Test
    void server_errors_are_retried_with_backoff_and_nothing_is_final_until_central_answers() {
        try (TestSite site = new TestSite(dir);
                DeviceSimulator device = site.device("dev-500")) {
            device.connectAndSubscribe();
            site.central.faults(Faults.status(500, null, 3));
            device.publish("t", DeviceSimulator.command("E500-1", ""));
            assertThat(device.awaitFinal("E500-1").path("status").asText()).isEqualTo("accepted");
            assertThat(site.central.requestLog())
                    .extracting(CentralSim.Request::status)
                    .containsExactly(500, 500, 500, 200);
            assertThat(device.receiptsFor("E500-1"))
                    .extracting(r -> r.path("status").asText())
                    .containsExactly("stored", "accepted");
        }
    }
}
