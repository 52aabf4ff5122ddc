package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.edgebridge.central.Faults;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;

/** Every endpoint of docs/protocol.md §3 against a running bridge, with auth failures and bad input. */
class AdminApiIT extends OneDeviceSite {
    private static final Pattern PROMETHEUS_SAMPLE =
            Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*(\\{[^}]*\\})? -?([0-9.eE+-]+|NaN|\\+Inf|-Inf)");

    AdminApiIT() {
        super("dev-admin", "forwarder.maxAttempts=2");
    }

    @Test
    void health_status_and_the_status_page_answer() throws Exception {
        assertThat(get("/health/live").statusCode()).isEqualTo(200);
        HttpResponse<String> ready = get("/health/ready");
        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(json(ready).path("outboxWritable").asBoolean()).isTrue();
        JsonNode status = json(get("/api/status"));
        assertThat(status.path("edgeId").asText()).isEqualTo("edge-01");
        assertThat(status.path("outbox").path("counts").fieldNames())
                .toIterable()
                .containsExactly("pending", "inflight", "parked", "accepted", "duplicate", "rejected");
        assertThat(status.path("forwarder").path("circuitBreaker").asText()).isEqualTo("closed");
        assertThat(status.path("broker").path("running").asBoolean()).isTrue();
        assertThat(status.path("alarms").isArray()).isTrue();
        HttpResponse<String> page = get("/");
        assertThat(page.headers().firstValue("Content-Type"))
                .hasValueSatisfying(ct -> assertThat(ct).startsWith("text/html"));
        assertThat(page.body()).contains("<title>edge bridge").doesNotContain("http://", "https://");
    }

    @Test
    void the_status_says_which_box_this_is_and_that_it_is_ready_for_a_balancer() throws Exception {
        JsonNode status = status();
        assertThat(status.path("site").path("edgeId").asText()).isEqualTo("edge-01");
        assertThat(status.path("site").path("behindBalancer").asBoolean())
                .as("the default")
                .isFalse();
        assertThat(status.path("ready").path("ready").asBoolean()).isTrue();
        assertThat(status.path("ready").path("forwarderRunning").asBoolean()).isTrue();
        assertThat(status.path("ready").path("accepting").asBoolean()).isTrue();
        assertThat(json(get("/health/ready"))).isEqualTo(status.path("ready"));
    }

    @Test
    void a_box_behind_a_balancer_says_so_on_its_status(@org.junit.jupiter.api.io.TempDir java.nio.file.Path other)
            throws Exception {
        try (TestSite box = new TestSite(other, "edge.id=box-b", "edge.behindBalancer=true")) {
            JsonNode status = box.getJson("/api/status");
            assertThat(status.path("site").path("edgeId").asText()).isEqualTo("box-b");
            assertThat(status.path("site").path("behindBalancer").asBoolean()).isTrue();
        }
    }

    @Test
    void ready_answers_503_once_the_bridge_stops_taking_commands_so_that_a_balancer_drains_it() throws Exception {
        site.bridge.intake().stopAccepting();
        HttpResponse<String> ready = get("/health/ready");
        assertThat(ready.statusCode()).isEqualTo(503);
        assertThat(json(ready).path("accepting").asBoolean()).isFalse();
        assertThat(json(ready).path("status").asText()).isEqualTo("not_ready");
    }

    @Test
    void ready_answers_503_when_the_forwarder_is_not_running() throws Exception {
        site.bridge.forwarder().close();
        HttpResponse<String> ready = get("/health/ready");
        assertThat(ready.statusCode()).isEqualTo(503);
        assertThat(json(ready).path("forwarderRunning").asBoolean()).isFalse();
        assertThat(json(ready).path("listeners").asBoolean())
                .as("the broker still runs")
                .isTrue();
        assertThat(status().path("ready").path("ready").asBoolean()).isFalse();
    }

    @Test
    void outbox_lists_with_filters_and_cursor_paging_and_one_row_has_its_history() throws Exception {
        for (int i = 1; i <= 5; i++) {
            device.publish("t", DeviceSimulator.command("LIST-" + i, ""));
        }
        device.awaitFinal("LIST-5");
        await().atMost(DeviceSimulator.WAIT)
                .until(() ->
                        json(get("/api/outbox?state=accepted")).path("items").size() == 5);

        List<String> seen = new ArrayList<>();
        String cursor = "";
        do {
            JsonNode page =
                    json(get("/api/outbox?device=dev-admin&limit=2" + (cursor.isEmpty() ? "" : "&cursor=" + cursor)));
            page.path("items").forEach(item -> seen.add(item.path("commandId").asText()));
            cursor = page.path("nextCursor").isNull()
                    ? ""
                    : page.path("nextCursor").asText();
        } while (!cursor.isEmpty());
        assertThat(seen).containsExactly("LIST-1", "LIST-2", "LIST-3", "LIST-4", "LIST-5");
        assertThat(json(get("/api/outbox?order=desc&limit=1"))
                        .path("items")
                        .get(0)
                        .path("commandId")
                        .asText())
                .isEqualTo("LIST-5");
        assertThat(json(get("/api/outbox?state=pending")).path("items")).isEmpty();
        assertThat(json(get("/api/outbox?device=nobody")).path("items")).isEmpty();

        JsonNode one = json(get("/api/outbox/dev-admin/LIST-3"));
        assertThat(one.path("state").asText()).isEqualTo("accepted");
        assertThat(one.path("sequence").asLong()).isEqualTo(3);
        assertThat(one.path("result").path("inboxId").asLong()).isPositive();
        assertThat(one.path("history")).extracting(h -> h.path("kind").asText()).containsExactly("attempt", "receipt");
        assertThat(one.path("history").get(1).path("status").asText()).isEqualTo("accepted");
    }

    @Test
    void bad_input_gets_400_json_and_unknown_rows_404() throws Exception {
        for (String query : List.of(
                "state=lost",
                "limit=0",
                "limit=1001",
                "limit=ten",
                "cursor=not-a-cursor",
                "order=sideways",
                "device=" + "d".repeat(129))) {
            HttpResponse<String> r = get("/api/outbox?" + query);
            assertThat(r.statusCode()).as(query).isEqualTo(400);
            assertThat(json(r).path("error").asText()).isEqualTo("bad_request");
            assertThat(json(r).path("message").asText()).isNotEmpty().doesNotContain("Exception");
        }
        assertThat(get("/api/outbox/dev-admin/" + "c".repeat(129)).statusCode()).isEqualTo(400);
        HttpResponse<String> missing = get("/api/outbox/dev-admin/NOPE");
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(json(missing).path("error").asText()).isEqualTo("not_found");
        assertThat(json(get("/api/nothing-here")).path("error").asText()).isEqualTo("not_found");
    }

    @Test
    void posts_need_the_admin_token_and_parked_commands_can_be_requeued_or_rejected() throws Exception {
        for (String path : List.of(
                "/api/forwarder/pause",
                "/api/forwarder/resume",
                "/api/outbox/dev-admin/X/requeue",
                "/api/outbox/dev-admin/X/reject")) {
            assertThat(post(path, null).statusCode()).as(path).isEqualTo(401);
            HttpResponse<String> wrong = post(path, "nope");
            assertThat(wrong.statusCode()).as(path).isEqualTo(401);
            assertThat(json(wrong).path("error").asText()).isEqualTo("unauthorized");
        }
        site.central.faults(new Faults("retry_later", 0, null, false, 0, 0, -1));
        device.publish("t", DeviceSimulator.command("PARK-1", ""));
        device.awaitReceipt("PARK-1", "stored");
        // retry_later to everything parks nothing (docs/forwarding.md, "Blame"): the admin sets the command aside
        await().atMost(DeviceSimulator.WAIT)
                .until(() ->
                        post("/api/outbox/dev-admin/PARK-1/park", "test-token").statusCode() == 200);
        await().atMost(DeviceSimulator.WAIT)
                .until(() -> json(get("/api/status"))
                                .path("outbox")
                                .path("counts")
                                .path("parked")
                                .asInt()
                        == 1);
        device.publish("t", DeviceSimulator.command("PARK-2", ""));
        device.awaitReceipt("PARK-2", "stored");
        assertThat(json(get("/api/status")).path("alarms").toString()).contains("parked_commands");
        assertThat(post("/api/outbox/dev-admin/PARK-2/requeue", "test-token").statusCode())
                .as("PARK-2 is pending, not parked")
                .isEqualTo(409);
        assertThat(post("/api/outbox/dev-admin/NOPE/reject", "test-token").statusCode())
                .isEqualTo(404);

        site.central.faults(Faults.NONE);
        HttpResponse<String> requeued = post("/api/outbox/dev-admin/PARK-1/requeue", "test-token");
        assertThat(requeued.statusCode()).isEqualTo(200);
        assertThat(json(requeued).path("history").toString()).contains("requeued");
        assertThat(device.awaitFinal("PARK-1").path("status").asText()).isEqualTo("accepted");
        assertThat(device.awaitFinal("PARK-2").path("status").asText()).isEqualTo("accepted");

        site.central.faults(new Faults("retry_later", 0, null, false, 0, 0, -1));
        device.publish("t", DeviceSimulator.command("PARK-3", ""));
        device.awaitReceipt("PARK-3", "stored");
        await().atMost(DeviceSimulator.WAIT)
                .until(() ->
                        post("/api/outbox/dev-admin/PARK-3/park", "test-token").statusCode() == 200);
        await().atMost(DeviceSimulator.WAIT)
                .until(() -> json(get("/api/outbox/dev-admin/PARK-3"))
                        .path("state")
                        .asText()
                        .equals("parked"));
        HttpResponse<String> rejected = post("/api/outbox/dev-admin/PARK-3/reject", "test-token");
        assertThat(rejected.statusCode()).isEqualTo(200);
        assertThat(json(rejected).path("code").asText()).isEqualTo("rejected_by_admin");
        JsonNode receipt = device.awaitFinal("PARK-3");
        assertThat(receipt.path("status").asText()).isEqualTo("rejected");
        assertThat(receipt.path("code").asText()).isEqualTo("rejected_by_admin");
        assertThat(site.central.inbox().entries()).extracting(e -> e.eventId()).doesNotContain("PARK-3");
    }

    @Test
    void devices_lists_connected_devices_with_pending_counts_and_takeovers() throws Exception {
        device.publish("t", DeviceSimulator.command("DEV-1", ""));
        device.awaitFinal("DEV-1");
        JsonNode devices = json(get("/api/devices")).path("devices");
        assertThat(devices).hasSize(1);
        JsonNode d = devices.get(0);
        assertThat(d.path("clientId").asText()).isEqualTo("dev-admin");
        assertThat(d.path("connected").asBoolean()).isTrue();
        assertThat(d.path("pending").asLong()).isZero();
        assertThat(d.path("lastSequence").asLong()).isEqualTo(1);
        assertThat(d.has("takeovers")).isTrue();
        assertThat(d.path("lastSeenAt").asText()).isNotEmpty();
    }

    @Test
    void metrics_parse_as_prometheus_text_with_outbox_forwarder_broker_and_jvm_series() throws Exception {
        device.publish("t", DeviceSimulator.command("MET-1", ""));
        device.awaitFinal("MET-1");
        HttpResponse<String> r = get("/metrics");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type"))
                .hasValueSatisfying(ct -> assertThat(ct).startsWith("text/plain"));
        List<String> samples =
                r.body().lines().filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
        assertThat(samples).allSatisfy(l -> assertThat(l).matches(PROMETHEUS_SAMPLE));
        assertThat(r.body())
                .contains(
                        "edgebridge_outbox_commands{state=\"accepted\"} 1.0",
                        "edgebridge_intake_stored_total 1.0",
                        "edgebridge_intake_rejected_total{code=\"invalid_json\"}",
                        "edgebridge_forwarder_requests_total",
                        "edgebridge_forwarder_paused 0.0",
                        "edgebridge_broker_connected_clients 1.0",
                        "resilience4j_circuitbreaker_state",
                        "resilience4j_ratelimiter_available_permissions",
                        "jvm_memory_used_bytes",
                        "process_uptime_seconds");
        // the receipts' figures are recorded once the broker took the receipt: a moment after the device may have it
        await().atMost(DeviceSimulator.WAIT)
                .until(
                        () -> get("/metrics").body(),
                        body -> body.contains("edgebridge_receipt_latency_seconds_count{receipt=\"stored\"} 1")
                                && body.contains("edgebridge_receipt_latency_seconds_count{receipt=\"final\"} 1")
                                && body.contains(
                                        "edgebridge_receipt_latency_seconds_bucket{receipt=\"final\",le=\"+Inf\"} 1")
                                && body.contains(
                                        "edgebridge_receipt_finals_total{code=\"none\",status=\"accepted\"} 1.0")
                                && body.contains("edgebridge_forwarder_request_duration_seconds_bucket{le=\"+Inf\"} 1")
                                && body.contains("edgebridge_forwarder_batch_events_bucket{le=\"1.0\"} 1"));
    }
}
