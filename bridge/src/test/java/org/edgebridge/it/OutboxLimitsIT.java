package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import org.edgebridge.central.Inbox;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.outbox.CommandState;
import org.edgebridge.outbox.OutboxFixture;
import org.edgebridge.outbox.RetentionPurger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Back-pressure and retention of the outbox, over real MQTT connections. */
class OutboxLimitsIT {
    @TempDir
    Path dir;

    @Test
    void at_max_pending_new_commands_get_outbox_full_and_their_resend_is_accepted_after_the_drain() {
        try (TestSite site = new TestSite(dir, "outbox.maxPending=3", "outbox.fullRetryAfter=2s");
                DeviceSimulator device = site.device("dev-full")) {
            device.connectAndSubscribe();
            site.bridge.forwarder().pause();
            List<String> ids = List.of("F-1", "F-2", "F-3", "F-4", "F-5");
            ids.forEach(id -> device.publish("t", DeviceSimulator.command(id, "")));
            for (String id : ids.subList(0, 3)) {
                device.awaitReceipt(id, "stored");
            }
            for (String id : ids.subList(3, 5)) {
                JsonNode full = device.awaitReceipt(id, "retry_later");
                assertThat(full.path("code").asText()).isEqualTo("outbox_full");
                assertThat(full.path("retryAfterMs").asLong()).isEqualTo(2000);
                assertThat(full.path("final").asBoolean()).isFalse();
                assertThat(full.path("sequence").isNull()).isTrue();
            }
            assertThat(site.bridge.intake().isFull()).isTrue();

            site.bridge.forwarder().resume();
            for (String id : ids.subList(0, 3)) {
                device.awaitReceipt(id, "accepted");
            }
            await().atMost(DeviceSimulator.WAIT)
                    .until(() -> !site.bridge.intake().isFull());
            ids.subList(3, 5).forEach(id -> device.publish("t", DeviceSimulator.command(id, "")));
            for (String id : ids.subList(3, 5)) {
                assertThat(device.awaitReceipt(id, "stored").path("sequence").asLong())
                        .isBetween(4L, 5L);
                device.awaitReceipt(id, "accepted");
            }
            assertThat(site.central.inbox().entries())
                    .extracting(Inbox.Entry::eventId)
                    .containsExactlyElementsOf(ids);
        }
    }

    @Test
    void below_the_disk_floor_new_commands_get_outbox_full_and_nothing_is_stored() {
        try (TestSite site = new TestSite(dir, "outbox.minFreeDisk=1000000GiB");
                DeviceSimulator device = site.device("dev-disk")) {
            device.connectAndSubscribe();
            device.publish("t", DeviceSimulator.command("D-1", ""));
            assertThat(device.awaitReceipt("D-1", "retry_later").path("code").asText())
                    .isEqualTo("outbox_full");
            assertThat(site.bridge.intake().isLowOnDisk()).isTrue();
            assertThat(site.bridge.outbox().reads().counts().perState().values().stream()
                            .mapToLong(Long::longValue)
                            .sum())
                    .isZero();
        }
    }

    @Test
    void purging_200000_old_rows_does_not_stop_intake() throws Exception {
        int oldRows = 200_000;
        Path data = dir.resolve("data");
        try (OutboxFixture fixture = OutboxFixture.at(data.resolve("outbox.db"))) {
            fixture.oldFinalRows("old-device", oldRows, Duration.ofDays(8));
        }
        try (TestSite site = new TestSite(data, "outbox.purgeBatch=500", "outbox.retention=7d");
                DeviceSimulator device = site.device("dev-live")) {
            device.connectAndSubscribe();
            await().atMost(DeviceSimulator.WAIT)
                    .until(() -> site.bridge.retention().status().purged() > 0);
            // each command's stored receipt, and whether the purge was still going when it came
            Map<String, Boolean> storedWhilePurging = new ConcurrentHashMap<>();
            long purgedWhenFirstSent = site.bridge.retention().status().purged();
            for (int i = 1; i <= 20; i++) {
                String id = "LIVE-" + i;
                device.publish("t", DeviceSimulator.command(id, ""));
                device.awaitReceipt(id, "stored");
                RetentionPurger.Status purge = site.bridge.retention().status();
                storedWhilePurging.put(id, purge.purging() && purge.purged() < oldRows);
            }
            long purgedWhenLastStored = site.bridge.retention().status().purged();
            System.out.printf(
                    "retention IT: purged %d -> %d while 20 commands were stored; %d of them while the purge ran%n",
                    purgedWhenFirstSent,
                    purgedWhenLastStored,
                    storedWhilePurging.values().stream().filter(b -> b).count());
            assertThat(storedWhilePurging.get("LIVE-1"))
                    .as("intake stored a command while the purge was running "
                            + "(the purge began before it was sent and deletes in batches)")
                    .isTrue();
            IntStream.rangeClosed(1, 20).forEach(i -> device.awaitReceipt("LIVE-" + i, "accepted"));
            await().atMost(Duration.ofMinutes(2))
                    .until(() -> site.bridge.retention().status().purged() == oldRows);
            assertThat(site.bridge.outbox().reads().counts().count(CommandState.ACCEPTED))
                    .isEqualTo(20);
        }
    }
}
