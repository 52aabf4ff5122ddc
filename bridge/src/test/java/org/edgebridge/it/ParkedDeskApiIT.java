package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.outbox.CommandState;
import org.edgebridge.outbox.OutboxFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The desk's REST API (docs/desk.md) with the shipped defaults: parked commands (set aside by an admin, or parked by
 * central's proven failures) are grouped by code and device, requeued or rejected by a list, by device
 * and by code, each with a history line; rejected devices get their final receipt; a bulk request decides on at most
 * 500 commands.
 */
class ParkedDeskApiIT {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Duration PARKING = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    TestSite site;

    @AfterEach
    void stop() {
        if (site != null) {
            site.close();
        }
    }

    /** Parks the given commands of two devices: claimed together while central answers retry_later to everything. */
    static void parkTogether(TestSite site, DeviceSimulator a, List<String> ofA, DeviceSimulator b, List<String> ofB)
            throws Exception {
        // central's retry_later to everything parks nothing (docs/forwarding.md, "Blame"): the admin sets the commands
        // aside while the forwarder is paused (none of them in flight), as a site does with a pending poison
        assertThat(site.post("/api/forwarder/pause", "test-token").statusCode()).isEqualTo(200);
        for (String id : ofA) {
            a.publish("t", DeviceSimulator.command(id, ""));
            a.awaitReceipt(id, "stored");
        }
        for (String id : ofB) {
            b.publish("t", DeviceSimulator.command(id, ""));
            b.awaitReceipt(id, "stored");
        }
        for (String id : ofA) {
            park(site, a.clientId(), id);
        }
        for (String id : ofB) {
            park(site, b.clientId(), id);
        }
        await().atMost(PARKING)
                .until(() -> ofA.stream().allMatch(id -> parked(site, a.clientId(), id))
                        && ofB.stream().allMatch(id -> parked(site, b.clientId(), id)));
        assertThat(site.post("/api/forwarder/resume", "test-token").statusCode())
                .isEqualTo(200);
    }

    private static void park(TestSite site, String device, String commandId) {
        await().atMost(DeviceSimulator.WAIT)
                .until(() -> site.post("/api/outbox/" + device + "/" + commandId + "/park", "test-token")
                                .statusCode()
                        == 200);
    }

    @Test
    void parked_commands_are_grouped_and_requeued_by_list_rejected_by_device_and_each_action_is_in_the_history()
            throws Exception {
        site = new TestSite(dir);
        try (DeviceSimulator a = site.device("desk-a");
                DeviceSimulator b = site.device("desk-b")) {
            a.connectAndSubscribe();
            b.connectAndSubscribe();
            parkTogether(site, a, List.of("A-1", "A-2", "A-3"), b, List.of("B-1", "B-2"));

            JsonNode desk = site.getJson("/api/parked");
            assertThat(desk.path("moreGroups").asBoolean()).isFalse();
            assertThat(desk.path("groups"))
                    .extracting(g ->
                            g.path("code").asText() + "/" + g.path("deviceId").asText() + "="
                                    + g.path("commands").asInt())
                    .containsExactly("parked_by_admin/desk-a=3", "parked_by_admin/desk-b=2");
            JsonNode first = desk.path("items").get(0);
            assertThat(first.path("commandId").asText()).isEqualTo("A-1");
            assertThat(first.path("code").asText()).isEqualTo("parked_by_admin");
            assertThat(first.path("reason").asText()).isNotEmpty();
            assertThat(first.path("ageMs").asLong()).isNotNegative();
            assertThat(site.get("/api/outbox/desk-a/A-1/payload").body()).contains("\"commandId\":\"A-1\"");

            HttpResponse<String> byList = post(
                    "/api/parked/requeue",
                    "{\"commands\":[{\"deviceId\":\"desk-a\",\"commandId\":\"A-1\"},{\"deviceId\":\"desk-a\",\"commandId\":\"A-2\"},"
                            + "{\"deviceId\":\"desk-a\",\"commandId\":\"NOPE\"}]}");
            assertThat(byList.statusCode()).isEqualTo(200);
            JsonNode requeued = OneDeviceSite.json(byList);
            assertThat(requeued.path("changed").asInt()).isEqualTo(2);
            assertThat(requeued.path("notParked").get(0).path("state").asText()).isEqualTo("not_found");
            assertThat(a.awaitFinal("A-1").path("status").asText()).isEqualTo("accepted");
            assertThat(a.awaitFinal("A-2").path("status").asText()).isEqualTo("accepted");
            assertThat(state("desk-a", "A-3"))
                    .as("not in the list: still parked")
                    .isEqualTo("parked");

            JsonNode byDevice = OneDeviceSite.json(post("/api/parked/reject", "{\"deviceId\":\"desk-b\"}"));
            assertThat(byDevice.path("changed").asInt()).isEqualTo(2);
            for (String id : List.of("B-1", "B-2")) {
                JsonNode receipt = b.awaitFinal(id);
                assertThat(receipt.path("status").asText()).isEqualTo("rejected");
                assertThat(receipt.path("code").asText()).isEqualTo("rejected_by_admin");
            }
            JsonNode history = site.getJson("/api/outbox/desk-b/B-2").path("history");
            JsonNode audit = history.get(history.size() - 1);
            assertThat(audit.path("kind").asText()).isEqualTo("rejected_by_admin");
            assertThat(audit.path("detail").asText()).contains("by an admin from", "bulk: device=desk-b");
            assertThat(site.getJson("/api/outbox/desk-a/A-1").path("history").toString())
                    .contains("\"requeued\"", "bulk: a list of 3");

            JsonNode byCode = OneDeviceSite.json(post("/api/parked/requeue", "{\"code\":\"parked_by_admin\"}"));
            assertThat(byCode.path("commands"))
                    .extracting(c -> c.path("commandId").asText())
                    .containsExactly("A-3");
            assertThat(a.awaitFinal("A-3").path("status").asText()).isEqualTo("accepted");
            assertThat(site.getJson("/api/parked").path("total").asInt()).isZero();
        }
    }

    @Test
    void a_rejection_by_code_takes_only_that_code_and_the_device_behind_it_goes_on() throws Exception {
        // P-1 as the forwarder parks an event that alone made central answer 5xx ten times (PoisonEventIT plays that
        // whole hunt), with the device's next command held behind it
        Path data = dir.resolve("data");
        String next;
        try (OutboxFixture fixture = OutboxFixture.at(data.resolve("outbox.db"))) {
            fixture.parked("desk-p", "P-1", "ingest_server_error");
            next = fixture.pending("desk-p", "P-NEXT-", 1).get(0).commandId();
        }
        site = new TestSite(data);
        try (DeviceSimulator poisoned = site.device("desk-p");
                DeviceSimulator other = site.device("desk-q")) {
            poisoned.connectAndSubscribe();
            other.connectAndSubscribe();
            parkTogether(site, other, List.of("Q-1"), other, List.of());

            JsonNode desk = site.getJson("/api/parked");
            assertThat(desk.path("groups"))
                    .extracting(g ->
                            g.path("code").asText() + "/" + g.path("deviceId").asText())
                    .containsExactly("ingest_server_error/desk-p", "parked_by_admin/desk-q");
            assertThat(state("desk-p", next)).as("held behind the parked one").isEqualTo("pending");
            JsonNode rejected = OneDeviceSite.json(post("/api/parked/reject", "{\"code\":\"ingest_server_error\"}"));
            assertThat(rejected.path("commands"))
                    .extracting(c -> c.path("commandId").asText())
                    .containsExactly("P-1");
            assertThat(poisoned.awaitFinal("P-1").path("code").asText()).isEqualTo("rejected_by_admin");
            await().atMost(DeviceSimulator.WAIT)
                    .until(() -> state("desk-p", next).equals("accepted"));
            assertThat(state("desk-q", "Q-1")).isEqualTo("parked");
            assertThat(site.central.inbox().entries())
                    .extracting(e -> e.eventId())
                    .doesNotContain("P-1");
        }
    }

    @Test
    void a_bulk_request_decides_on_at_most_500_and_says_more_are_left() throws Exception {
        Path data = dir.resolve("data");
        try (OutboxFixture fixture = OutboxFixture.at(data.resolve("outbox.db"))) {
            fixture.backlog("BIG-", 3, 501, CommandState.PARKED);
        }
        site = new TestSite(data);
        assertThat(site.getJson("/api/parked?limit=10").path("more").asBoolean())
                .isTrue();
        JsonNode firstRound = OneDeviceSite.json(post("/api/parked/reject", "{\"code\":\"retry_later_limit\"}"));
        assertThat(firstRound.path("changed").asInt()).isEqualTo(500);
        assertThat(firstRound.path("more").asBoolean()).isTrue();
        JsonNode secondRound = OneDeviceSite.json(post("/api/parked/reject", "{\"code\":\"retry_later_limit\"}"));
        assertThat(secondRound.path("changed").asInt()).isEqualTo(1);
        assertThat(secondRound.path("more").asBoolean()).isFalse();
        assertThat(site.getJson("/api/status")
                        .path("outbox")
                        .path("counts")
                        .path("rejected")
                        .asInt())
                .isEqualTo(501);
        assertThat(site.getJson("/api/status").path("outbox").path("open").asInt())
                .isZero();

        StringBuilder tooMany = new StringBuilder("{\"commands\":[");
        for (int i = 0; i < 501; i++) {
            tooMany.append(i == 0 ? "" : ",")
                    .append("{\"deviceId\":\"dev-0\",\"commandId\":\"X-")
                    .append(i)
                    .append("\"}");
        }
        HttpResponse<String> refused =
                post("/api/parked/requeue", tooMany.append("]}").toString());
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(OneDeviceSite.json(refused).path("message").asText()).contains("1-500 per request");
        for (String body : List.of(
                "", "{}", "not json", "{\"code\":\"x\",\"commands\":[]}", "{\"commands\":[{\"deviceId\":\"d\"}]}")) {
            HttpResponse<String> bad = post("/api/parked/requeue", body);
            assertThat(bad.statusCode()).as(body).isEqualTo(400);
            assertThat(OneDeviceSite.json(bad).path("error").asText()).isEqualTo("bad_request");
        }
        HttpResponse<String> noToken = HTTP.send(
                HttpRequest.newBuilder(URI.create(site.adminUrl("/api/parked/reject")))
                        .POST(HttpRequest.BodyPublishers.ofString("{\"code\":\"retry_later_limit\"}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(noToken.statusCode()).isEqualTo(401);
    }

    private static boolean parked(TestSite site, String device, String command) {
        return site.bridge
                .outbox()
                .find(device, command)
                .map(r -> r.state() == CommandState.PARKED)
                .orElse(false);
    }

    private String state(String device, String command) throws Exception {
        return site.getJson("/api/outbox/" + device + "/" + command)
                .path("state")
                .asText();
    }

    private HttpResponse<String> post(String path, String body) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create(site.adminUrl(path)))
                        .header("Authorization", "Bearer test-token")
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
