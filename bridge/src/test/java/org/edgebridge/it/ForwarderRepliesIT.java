package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.edgebridge.central.CentralSim;
import org.edgebridge.central.Faults;
import org.edgebridge.central.Inbox;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.outbox.CommandState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replies of docs/protocol.md §2.3 that {@link ForwarderIT} does not cover, one test each: the outbox state, the
 * receipt the device gets, and what central applied.
 */
class ForwarderRepliesIT {
    @TempDir
    Path dir;

    @Test
    void a_rejected_receipt_from_central_is_final_with_centrals_code() {
        try (TestSite site = new TestSite(dir); DeviceSimulator device = site.device("dev-r")) {
            device.connectAndSubscribe();
            site.central.faults(Faults.of("reject", 1));
            device.publish("t", DeviceSimulator.command("REJ-1", ""));
            JsonNode receipt = device.awaitFinal("REJ-1");
            assertThat(receipt.path("status").asText()).isEqualTo("rejected");
            assertThat(receipt.path("code").asText()).isEqualTo("sim_rejected");
            assertThat(site.bridge.outbox().find("dev-r", "REJ-1").orElseThrow().state()).isEqualTo(CommandState.REJECTED);
            assertThat(site.central.inbox().size()).isZero();
        }
    }

    @Test
    void a_200_without_receipts_is_retried_and_central_answers_duplicate_the_second_time() {
        try (TestSite site = new TestSite(dir); DeviceSimulator device = site.device("dev-m")) {
            device.connectAndSubscribe();
            site.central.faults(Faults.of("omit_receipts", 1));
            device.publish("t", DeviceSimulator.command("MISS-1", ""));
            JsonNode receipt = device.awaitFinal("MISS-1");
            assertThat(receipt.path("status").asText()).isEqualTo("duplicate");
            assertThat(site.bridge.outbox().find("dev-m", "MISS-1").orElseThrow().retryLaters()).as("not counted toward parking")
                    .isZero();
            assertThat(site.central.inbox().entries()).singleElement().satisfies(e -> assertThat(e.deliveries()).isEqualTo(2));
        }
    }

    @Test
    void a_429_with_an_http_date_retry_after_is_waited_out() {
        try (TestSite site = new TestSite(dir); DeviceSimulator device = site.device("dev-429")) {
            device.connectAndSubscribe();
            site.central.faults(new Faults("status", 429, 2, true, 0, 0, 1));
            device.publish("t", DeviceSimulator.command("SLOW-1", ""));
            assertThat(device.awaitFinal("SLOW-1").path("status").asText()).isEqualTo("accepted");
            List<CentralSim.Request> log = site.central.requestLog();
            assertThat(log).extracting(CentralSim.Request::status).containsExactly(429, 200);
            assertThat(java.time.Duration.between(log.get(0).at(), log.get(1).at()).toMillis())
                    .as("no request before the Retry-After date (second resolution)").isGreaterThanOrEqualTo(900);
        }
    }

    @Test
    void server_errors_are_retried_with_backoff_and_nothing_is_final_until_central_answers() {
        try (TestSite site = new TestSite(dir); DeviceSimulator device = site.device("dev-500")) {
            device.connectAndSubscribe();
            site.central.faults(Faults.status(500, null, 3));
            device.publish("t", DeviceSimulator.command("E500-1", ""));
            assertThat(device.awaitFinal("E500-1").path("status").asText()).isEqualTo("accepted");
            assertThat(site.central.requestLog()).extracting(CentralSim.Request::status).containsExactly(500, 500, 500, 200);
            assertThat(device.receiptsFor("E500-1")).extracting(r -> r.path("status").asText()).containsExactly("stored", "accepted");
        }
    }

    @Test
    void a_413_splits_the_batch_and_a_single_event_that_is_still_too_large_is_rejected() {
        try (CentralSim central = TestSite.central(Optional.empty(), 3_000);
                TestSite site = TestSite.withCentral(dir, central, "forwarder.linger=500ms");
                DeviceSimulator device = site.device("dev-413")) {
            device.connectAndSubscribe();
            site.bridge.forwarder().pause();
            String pad = "\"pad\":\"" + "p".repeat(700) + "\"";
            for (int i = 1; i <= 4; i++) {
                device.publish("t", DeviceSimulator.command("SPLIT-" + i, pad));
            }
            device.publish("t", DeviceSimulator.command("HUGE-1", "\"pad\":\"" + "h".repeat(5_000) + "\""));
            device.awaitReceipt("HUGE-1", "stored");
            site.bridge.forwarder().resume();
            for (int i = 1; i <= 4; i++) {
                assertThat(device.awaitFinal("SPLIT-" + i).path("status").asText()).isEqualTo("accepted");
            }
            JsonNode huge = device.awaitFinal("HUGE-1");
            assertThat(huge.path("status").asText()).isEqualTo("rejected");
            assertThat(huge.path("code").asText()).isEqualTo("ingest_payload_too_large");
            assertThat(central.inbox().entries()).extracting(Inbox.Entry::eventId)
                    .containsExactly("SPLIT-1", "SPLIT-2", "SPLIT-3", "SPLIT-4");
            // Jetty answered 413 before central's handler; the requests it did take were split ones
            assertThat(central.requestLog()).hasSizeGreaterThanOrEqualTo(2)
                    .allSatisfy(r -> assertThat(r.events()).isLessThan(4));
        }
    }

    @Test
    void a_400_is_bisected_down_to_the_bad_event_which_alone_is_rejected() {
        try (TestSite site = new TestSite(dir); DeviceSimulator a = site.device("dev-a"); DeviceSimulator b = site.device("dev-b")) {
            a.connectAndSubscribe();
            b.connectAndSubscribe();
            site.bridge.forwarder().pause();
            site.central.faults(new Faults("poison_400", 0, null, false, 0, 0, -1));
            for (int i = 1; i <= 4; i++) {
                a.publish("t", DeviceSimulator.command("A-" + i, i == 3 ? "\"poison\":true" : ""));
                b.publish("t", DeviceSimulator.command("B-" + i, ""));
            }
            b.awaitReceipt("B-4", "stored");
            a.awaitReceipt("A-4", "stored");
            site.bridge.forwarder().resume();
            JsonNode poisoned = a.awaitFinal("A-3");
            assertThat(poisoned.path("status").asText()).isEqualTo("rejected");
            assertThat(poisoned.path("code").asText()).isEqualTo("ingest_bad_request");
            for (String id : List.of("A-1", "A-2", "A-4")) {
                assertThat(a.awaitFinal(id).path("status").asText()).isEqualTo("accepted");
            }
            for (int i = 1; i <= 4; i++) {
                assertThat(b.awaitFinal("B-" + i).path("status").asText()).isEqualTo("accepted");
            }
            assertThat(site.central.inbox().entries()).extracting(Inbox.Entry::eventId).doesNotContain("A-3").hasSize(7);
            assertThat(site.central.inbox().stats().get("orderingViolations")).isZero();
        }
    }

    @Test
    void a_404_pauses_forwarding_with_an_alarm_and_rejects_nothing() {
        try (TestSite site = new TestSite(dir, "forwarder.authRetryInterval=1s"); DeviceSimulator device = site.device("dev-404")) {
            device.connectAndSubscribe();
            site.central.faults(Faults.status(404, null, 2));
            device.publish("t", DeviceSimulator.command("NF-1", ""));
            await().atMost(DeviceSimulator.WAIT).until(() -> site.bridge.forwarder().status().state().equals("paused_by_central"));
            assertThat(site.bridge.forwarder().status().pauseReason()).hasValueSatisfying(r -> assertThat(r).contains("404"));
            assertThat(site.bridge.outbox().find("dev-404", "NF-1").orElseThrow().state()).isEqualTo(CommandState.PENDING);
            assertThat(device.awaitFinal("NF-1").path("status").asText()).isEqualTo("accepted");
        }
    }
}
