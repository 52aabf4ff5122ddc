package org.edgebridge.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 40 point 4, with the SHIPPED DEFAULTS (outbox.maxPendingBytesPerDevice 64 MiB, intake.maxPayloadBytes 256 KiB):
 * central is away and one device sends ~250 KB commands without end. Before, nothing bounded a device's share: it
 * took the outbox up to outbox.maxPending (a million commands: 250 GB) or the disk floor, and then every device got
 * outbox_full. Now it is refused retry_later / device_outbox_full at 64 MiB of open commands, named on /api/status
 * and in /metrics, while another device keeps storing; once central is back and its commands are final, it stores
 * again by itself, and the payloads of its final commands are dropped (their pages are free pages, counted as room).
 */
class DeviceShareIT {
    private static final int PAD = 250_000;
    private static final long SHARE = 64L << 20;

    @TempDir
    Path dir;

    @Test
    void one_device_is_held_at_its_share_while_another_keeps_storing_and_it_recovers_by_itself() throws Exception {
        try (HostileSite site = new HostileSite(dir)) {
            DeviceSimulator hog = site.device("dev-hog");
            DeviceSimulator other = site.device("dev-other");
            site.bridge.forwarder().pause(); // central away: nothing becomes final
            String pad = "\"pad\":\"" + "x".repeat(PAD) + "\"";
            List<String> refused = new ArrayList<>();
            int stored = 0;
            int otherStored = 0;
            for (int i = 1; refused.size() < 3; i++) {
                String id = "H-" + i;
                hog.publish("t", DeviceSimulator.command(id, pad));
                await().atMost(DeviceSimulator.WAIT)
                        .until(() -> !hog.receiptsFor(id).isEmpty());
                JsonNode first = hog.receiptsFor(id).get(0);
                if (first.path("status").asText().equals("stored")) {
                    stored++;
                } else {
                    assertThat(first.path("status").asText()).isEqualTo("retry_later");
                    assertThat(first.path("code").asText()).as(first.toString()).isEqualTo("device_outbox_full");
                    refused.add(id);
                }
                if (i % 20 == 0 || !refused.isEmpty()) {
                    String o = "O-" + i;
                    other.publish("t", DeviceSimulator.command(o, "\"pad\":\"" + "y".repeat(1000) + "\""));
                    other.awaitReceipt(o, "stored");
                    otherStored++;
                }
                assertThat(i).as("refused before far past its share").isLessThan(400);
            }
            assertThat((long) stored * PAD)
                    .as("it stored about its share, 64 MiB")
                    .isBetween(SHARE - 2L * PAD, SHARE);
            JsonNode status = site.status();
            assertThat(status.path("alarms").findValuesAsText("code"))
                    .contains("device_outbox_full")
                    .doesNotContain("outbox_full", "low_disk");
            assertThat(status.path("outbox").path("devicesAtShare").findValuesAsText("clientId"))
                    .containsExactly("dev-hog");
            assertThat(site.metrics())
                    .contains("edgebridge_outbox_device_full{client_id=\"dev-hog\"} " + stored + ".0");
            System.out.printf(
                    "FIGURES device share: dev-hog stored %d commands (%d MB) then got device_outbox_full; "
                            + "dev-other stored %d meanwhile%n",
                    stored, (long) stored * PAD / 1_000_000, otherStored);

            site.bridge.forwarder().resume(); // central back: the device's commands become final
            for (int i = 1; i <= stored; i++) {
                hog.awaitFinal("H-" + i);
            }
            for (String id : refused) {
                hog.publish("t", DeviceSimulator.command(id, pad));
                assertThat(hog.awaitReceipt(id, "stored").path("sequence").asLong())
                        .isPositive();
            }
            for (String id : refused) {
                assertThat(hog.awaitFinal(id).path("status").asText()).isEqualTo("accepted");
            }
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> site.bridge.outbox().freeBytes() > SHARE / 2);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !site.status()
                            .path("alarms")
                            .findValuesAsText("code")
                            .contains("device_outbox_full"));
            System.out.printf(
                    "FIGURES device share: after central took them, %d MB of free pages in the outbox file "
                            + "(payloads of published finals dropped)%n",
                    site.bridge.outbox().freeBytes() / 1_000_000);
        }
    }
}
