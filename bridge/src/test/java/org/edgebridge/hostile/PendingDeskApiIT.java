package org.edgebridge.hostile;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 39, part 3: the desk's remedy for a command that is pending, not parked (docs/desk.md, "Pending commands"),
 * with the SHIPPED DEFAULTS in front of a {@link HostileCentral}. A poison event central fails with a 500 is set aside
 * by an admin before the forwarder isolates it ({@code POST …/park}: parked, {@code parked_by_admin}), its device's
 * next command waits behind it, then the admin rejects it ({@code POST …/reject}: the device gets {@code rejected} /
 * {@code rejected_by_admin}, with a warning that central saw it before). A command never sent is rejected while
 * pending and never reaches central; one in flight is refused with 409 {@code in_flight}; 401 without the token, 404
 * for an unknown command, 409 for a final one.
 */
class PendingDeskApiIT {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void an_admin_parks_a_pending_poison_then_rejects_it_and_its_device_goes_on() throws Exception {
        try (HostileSite site = new HostileSite(dir)) {
            site.central.otherwise(HostileCentral.poisoned("P-1", HostileCentral.status(500, null)));
            DeviceSimulator poisoned = publish(site.device("dev-poison"), "P-1", "P-2");
            DeviceSimulator other = publish(site.device("dev-other"), "O-1");
            await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> sentToCentral(site, "P-1"));
            // the admin stops the forwarder so that the poison is not in flight when the park arrives; the forwarder
            // isolates it by itself only after several failures alone (seconds), so it is still pending here
            assertThat(site.post("/api/forwarder/pause").statusCode()).isEqualTo(200);
            await().atMost(WAIT)
                    .until(() -> command(site, "dev-poison", "P-1")
                            .path("state")
                            .asText()
                            .equals("pending"));
            assertThat(command(site, "dev-poison", "P-1").path("code").isMissingNode())
                    .as("not parked by the forwarder")
                    .isTrue();

            HttpResponse<String> park = site.post("/api/outbox/dev-poison/P-1/park");
            assertThat(park.statusCode()).as(park.body()).isEqualTo(200);
            JsonNode parked = DeviceSimulator.JSON.readTree(park.body());
            assertThat(parked.path("action").asText()).isEqualTo("park");
            assertThat(parked.path("state").asText()).isEqualTo("parked");
            assertThat(parked.path("code").asText()).isEqualTo("parked_by_admin");
            assertThat(parked.path("maybeSentToCentral").asBoolean()).isTrue();
            assertThat(parked.path("warning").isMissingNode()).isTrue();
            JsonNode parkLine = last(parked.path("history"));
            assertThat(parkLine.path("kind").asText()).isEqualTo("parked_by_admin");
            assertThat(parkLine.path("detail").asText())
                    .startsWith("by an admin from 127.0.0.1, while pending")
                    .contains("it may have reached central");
            assertThat(site.post("/api/outbox/dev-poison/P-1/park").statusCode())
                    .as("parked already")
                    .isEqualTo(409);

            JsonNode desk = DeviceSimulator.JSON.readTree(site.get("/api/parked"));
            assertThat(desk.path("groups"))
                    .extracting(g ->
                            g.path("code").asText() + "/" + g.path("deviceId").asText())
                    .containsExactly("parked_by_admin/dev-poison");

            int requestsBefore = site.central.requests().size();
            assertThat(site.post("/api/forwarder/resume").statusCode()).isEqualTo(200);
            other.publish("t", DeviceSimulator.command("O-2", ""));
            assertThat(other.awaitFinal("O-2").path("status").asText()).isEqualTo("accepted");
            assertThat(command(site, "dev-poison", "P-2").path("state").asText())
                    .as("behind its parked predecessor, as for any parked command")
                    .isEqualTo("pending");
            List<HostileCentral.Request> since = site.central.requests();
            assertThat(since.subList(requestsBefore, since.size()))
                    .as("nothing of dev-poison sent while P-1 is parked")
                    .noneMatch(r -> r.holds("P-1") || r.holds("P-2"));

            HttpResponse<String> reject = site.post("/api/outbox/dev-poison/P-1/reject");
            assertThat(reject.statusCode()).as(reject.body()).isEqualTo(200);
            JsonNode rejected = DeviceSimulator.JSON.readTree(reject.body());
            assertThat(rejected.path("state").asText()).isEqualTo("rejected");
            assertThat(rejected.path("code").asText()).isEqualTo("rejected_by_admin");
            assertThat(rejected.path("maybeSentToCentral").asBoolean()).isTrue();
            assertThat(rejected.path("warning").asText()).contains("central may have applied it");
            assertThat(rejected.path("history"))
                    .extracting(h -> h.path("kind").asText())
                    .contains("parked_by_admin", "rejected_by_admin");
            JsonNode receipt = poisoned.awaitFinal("P-1");
            assertThat(receipt.path("status").asText()).isEqualTo("rejected");
            assertThat(receipt.path("code").asText()).isEqualTo("rejected_by_admin");
            assertThat(poisoned.awaitFinal("P-2").path("status").asText()).isEqualTo("accepted");

            HttpResponse<String> again = site.post("/api/outbox/dev-poison/P-1/reject");
            assertThat(again.statusCode()).isEqualTo(409);
            assertThat(DeviceSimulator.JSON.readTree(again.body()).path("error").asText())
                    .isEqualTo("already_final");
            HttpResponse<String> parkFinal = site.post("/api/outbox/dev-other/O-1/park");
            assertThat(parkFinal.statusCode()).isEqualTo(409);
            assertThat(DeviceSimulator.JSON
                            .readTree(parkFinal.body())
                            .path("message")
                            .asText())
                    .contains("is final (accepted)");
            for (String action : List.of("park", "reject")) {
                HttpResponse<String> unknown = site.post("/api/outbox/dev-poison/NOPE/" + action);
                assertThat(unknown.statusCode()).as(action).isEqualTo(404);
                assertThat(DeviceSimulator.JSON
                                .readTree(unknown.body())
                                .path("error")
                                .asText())
                        .isEqualTo("not_found");
            }
        }
    }

    @Test
    void a_command_never_sent_is_rejected_while_pending_and_central_never_sees_it() throws Exception {
        try (HostileSite site = new HostileSite(dir)) {
            assertThat(site.post("/api/forwarder/pause").statusCode()).isEqualTo(200);
            DeviceSimulator device = publish(site.device("dev-x"), "X-1", "X-2");
            device.awaitReceipt("X-2", "stored");

            for (String action : List.of("park", "reject")) {
                HttpResponse<String> noToken = HTTP.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + site.bridge.adminPort()
                                        + "/api/outbox/dev-x/X-1/" + action))
                                .POST(HttpRequest.BodyPublishers.noBody())
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(noToken.statusCode()).as(action).isEqualTo(401);
            }
            assertThat(command(site, "dev-x", "X-1").path("state").asText()).isEqualTo("pending");

            HttpResponse<String> reject = site.post("/api/outbox/dev-x/X-1/reject");
            assertThat(reject.statusCode()).as(reject.body()).isEqualTo(200);
            JsonNode rejected = DeviceSimulator.JSON.readTree(reject.body());
            assertThat(rejected.path("action").asText()).isEqualTo("reject");
            assertThat(rejected.path("maybeSentToCentral").asBoolean()).isFalse();
            assertThat(rejected.path("warning").isMissingNode()).isTrue();
            assertThat(last(rejected.path("history")).path("detail").asText())
                    .isEqualTo("by an admin from 127.0.0.1, while pending (never sent to central)");
            JsonNode receipt = device.awaitFinal("X-1");
            assertThat(receipt.path("status").asText()).isEqualTo("rejected");
            assertThat(receipt.path("code").asText()).isEqualTo("rejected_by_admin");

            assertThat(site.post("/api/forwarder/resume").statusCode()).isEqualTo(200);
            assertThat(device.awaitFinal("X-2").path("status").asText()).isEqualTo("accepted");
            assertThat(sentToCentral(site, "X-1")).isFalse();
        }
    }

    /**
     * A command in flight is refused with 409 in_flight and left alone; once its request settled, the same park
     * succeeds. ingest.timeout 3 s instead of 30 s (central never answers a request that holds it), so that the
     * request settles within the test.
     */
    @Test
    void a_command_in_flight_is_refused_until_its_request_settles() throws Exception {
        try (HostileSite site = new HostileSite(dir, "ingest.timeout=3s")) {
            site.central.otherwise(HostileCentral.poisoned("S-1", HostileCentral.silent()));
            publish(site.device("dev-s"), "S-1");
            await().atMost(WAIT)
                    .until(() ->
                            command(site, "dev-s", "S-1").path("state").asText().equals("inflight"));
            for (String action : List.of("park", "reject")) {
                HttpResponse<String> refused = site.post("/api/outbox/dev-s/S-1/" + action);
                assertThat(refused.statusCode()).as(action).isEqualTo(409);
                JsonNode error = DeviceSimulator.JSON.readTree(refused.body());
                assertThat(error.path("error").asText()).isEqualTo("in_flight");
                assertThat(error.path("message").asText())
                        .contains("in flight with central right now")
                        .contains("Ask again");
            }
            assertThat(command(site, "dev-s", "S-1").path("history").toString()).doesNotContain("by_admin");
            await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(() -> {
                HttpResponse<String> park = site.post("/api/outbox/dev-s/S-1/park");
                assertThat(park.statusCode()).as(park.body()).isIn(200, 409);
                assertThat(park.body()).doesNotContain("already_parked");
                return park.statusCode() == 200;
            });
            assertThat(command(site, "dev-s", "S-1").path("code").asText()).isEqualTo("parked_by_admin");
        }
    }

    /** Publishes these commands, in this order. */
    private static DeviceSimulator publish(DeviceSimulator device, String... commandIds) {
        for (String id : commandIds) {
            device.publish("t", DeviceSimulator.command(id, ""));
        }
        return device;
    }

    private static JsonNode command(HostileSite site, String device, String id) throws Exception {
        return DeviceSimulator.JSON.readTree(site.get("/api/outbox/" + device + "/" + id));
    }

    private static boolean sentToCentral(HostileSite site, String eventId) {
        return site.central.requests().stream().anyMatch(r -> r.holds(eventId));
    }

    private static JsonNode last(JsonNode array) {
        return array.get(array.size() - 1);
    }
}
