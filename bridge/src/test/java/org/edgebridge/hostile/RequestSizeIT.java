package org.edgebridge.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23 point 7: {@code forwarder.maxBytes} bounds the serialized request. Before, it counted payload bytes plus a
 * constant (400): 200 commands on 60 KB topics went out as one 24 MB request at the shipped 1 MiB. Topics and types
 * now have bounds of their own (the type at most 128 characters, {@code mqtt.maxTopicBytes}), so the longest type a
 * device may send is what stretches a request here, at a {@code forwarder.maxBytes} small enough for 200 of them to
 * need several requests (16 KiB: the old estimate let ~38 events of ~500 bytes on the wire into one, ~19 KB).
 */
class RequestSizeIT {
    private static final int MAX_BYTES = 16 * 1024;
    /** The longest command type intake takes is 128 characters: "t199/" and 120 more. */
    private static final String LONG_TYPE_TAIL = "x".repeat(120);

    @TempDir
    Path dir;

    @Test
    void two_hundred_commands_with_the_longest_types_go_out_in_requests_of_at_most_max_bytes() throws Exception {
        try (HostileSite site = new HostileSite(dir, "forwarder.maxBytes=16KiB")) {
            // not subscribed to its receipts: the broker's outbound queue to one device is another matter, not this
            // one's
            DeviceSimulator device =
                    DeviceSimulator.of("dev-topics", site.bridge.broker().mqttPort());
            device.connect();
            site.bridge.forwarder().pause(); // let all 200 wait, so that one claim could take them all
            for (int i = 0; i < 200; i++) {
                device.publish("t" + i + "/" + LONG_TYPE_TAIL, DeviceSimulator.command("TOPIC-" + i, ""));
            }
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> site.status()
                                    .path("outbox")
                                    .path("counts")
                                    .path("pending")
                                    .asInt()
                            == 200);
            site.bridge.forwarder().resume();

            await().atMost(Duration.ofSeconds(60))
                    .until(() -> site.status()
                                    .path("outbox")
                                    .path("counts")
                                    .path("accepted")
                                    .asInt()
                            == 200);
            assertThat(site.central.requests())
                    .allSatisfy(r -> assertThat(r.body().length).isLessThanOrEqualTo(MAX_BYTES));
            assertThat(site.central.requests())
                    .anySatisfy(r -> assertThat(r.events()).hasSizeGreaterThan(1));
            assertThat(site.central.requests().stream()
                            .mapToInt(r -> r.events().size())
                            .sum())
                    .isEqualTo(200);
            device.close();
        }
    }

    @Test
    void a_single_event_larger_than_max_bytes_goes_alone() throws Exception {
        try (HostileSite site = new HostileSite(dir, "forwarder.maxBytes=1KiB")) {
            DeviceSimulator device = site.device("dev-alone");
            site.bridge.forwarder().pause();
            device.publish("big", DeviceSimulator.command("BIG-1", "\"pad\":\"" + "p".repeat(2000) + "\""));
            device.publish("small", DeviceSimulator.command("SMALL-2", ""));
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> site.status()
                                    .path("outbox")
                                    .path("counts")
                                    .path("pending")
                                    .asInt()
                            == 2);
            site.bridge.forwarder().resume();

            await().atMost(Duration.ofSeconds(30))
                    .until(() -> HostileSite.statuses(device, "SMALL-2").contains("accepted"));
            assertThat(HostileSite.statuses(device, "BIG-1")).containsExactly("stored", "accepted");
            assertThat(site.central.requests()).hasSize(2);
            assertThat(site.central.requests().get(0).events()).hasSize(1);
            assertThat(site.central.requests().get(0).body().length).isGreaterThan(1024);
            assertThat(site.central.requests().get(1).body().length).isLessThanOrEqualTo(1024);
            device.close();
        }
    }
}
