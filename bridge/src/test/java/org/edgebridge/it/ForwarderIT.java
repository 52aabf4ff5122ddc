package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.List;
import org.edgebridge.central.Faults;
import org.edgebridge.central.Inbox;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.outbox.CommandState;
import org.junit.jupiter.api.Test;

/** The forwarder against the reference central with injected faults: nothing lost, nothing applied twice. */
class ForwarderIT extends OneDeviceSite {
    ForwarderIT() {
        super("dev-fwd", "forwarder.authRetryInterval=1s");
    }

    @Test
    void central_answering_503_with_retry_after_is_waited_out_and_nothing_is_lost_or_doubled() {
        site.central.faults(Faults.status(503, 1, 2));
        List<String> ids = List.of("U-1", "U-2", "U-3");
        ids.forEach(id -> device.publish("t", DeviceSimulator.command(id, "")));
        ids.forEach(
                id -> assertThat(device.awaitFinal(id).path("status").asText()).isEqualTo("accepted"));
        assertThat(site.central.inbox().entries())
                .extracting(Inbox.Entry::eventId)
                .containsExactlyElementsOf(ids);
        assertThat(site.central.inbox().entries())
                .allSatisfy(e -> assertThat(e.deliveries()).isEqualTo(1));
        assertThat(site.bridge.forwarder().status().lastError())
                .hasValueSatisfying(e -> assertThat(e).contains("HTTP 503"));
    }

    @Test
    void a_reply_lost_after_central_applied_the_batch_ends_as_duplicate_with_the_original_result() {
        site.central.faults(Faults.of("lose_reply", 1));
        device.publish("t", DeviceSimulator.command("LOST-1", ""));
        JsonNode receipt = device.awaitFinal("LOST-1");
        assertThat(receipt.path("status").asText()).isEqualTo("duplicate");
        Inbox.Entry applied = site.central.inbox().entries().get(0);
        assertThat(receipt.path("result").path("inboxId").asLong()).isEqualTo(applied.inboxId());
        assertThat(site.central.inbox().entries()).hasSize(1);
        assertThat(applied.deliveries()).isEqualTo(2);
    }

    @Test
    void central_refusing_the_bridge_pauses_forwarding_with_an_alarm_and_loses_nothing() throws Exception {
        site.central.faults(Faults.status(401, null, 3));
        device.publish("t", DeviceSimulator.command("AUTH-1", ""));
        await().atMost(DeviceSimulator.WAIT)
                .until(() -> status().path("alarms").toString().contains("central_refused"));
        assertThat(status().path("forwarder").path("state").asText()).isEqualTo("paused_by_central");
        assertThat(device.receiptsFor("AUTH-1"))
                .allSatisfy(r -> assertThat(r.path("final").asBoolean()).isFalse());
        assertThat(device.awaitFinal("AUTH-1").path("status").asText()).isEqualTo("accepted");
        assertThat(site.central.inbox().entries()).hasSize(1);
        await().atMost(DeviceSimulator.WAIT)
                .until(() -> !status().path("alarms").toString().contains("central_refused"));
    }

    @Test
    void a_per_event_retry_later_is_sent_again_after_retry_after_ms() {
        site.central.faults(new Faults("retry_later", 0, null, false, 200, 0, 1));
        device.publish("t", DeviceSimulator.command("LATER-1", ""));
        assertThat(device.awaitFinal("LATER-1").path("status").asText()).isEqualTo("accepted");
        assertThat(site.bridge.outbox().find("dev-fwd", "LATER-1")).hasValueSatisfying(r -> {
            assertThat(r.state()).isEqualTo(CommandState.ACCEPTED);
            assertThat(r.retryLaters())
                    .as("a retry_later to every event of a reply counts nothing (docs/forwarding.md, Blame)")
                    .isZero();
            assertThat(r.attempts()).isEqualTo(2);
        });
        assertThat(device.receiptsFor("LATER-1"))
                .extracting(r -> r.path("status").asText())
                .containsExactly("stored", "accepted");
    }

    @Test
    void admin_pause_holds_commands_and_resume_sends_them_and_posts_need_the_token() throws Exception {
        assertThat(post("/api/forwarder/pause", null).statusCode()).isEqualTo(401);
        assertThat(post("/api/forwarder/pause", "wrong").statusCode()).isEqualTo(401);
        HttpResponse<String> paused = post("/api/forwarder/pause", "test-token");
        assertThat(paused.statusCode()).isEqualTo(200);
        device.publish("t", DeviceSimulator.command("HOLD-1", ""));
        device.awaitReceipt("HOLD-1", "stored");
        await().atMost(DeviceSimulator.WAIT)
                .until(() ->
                        status().path("outbox").path("counts").path("pending").asInt() == 1);
        assertThat(site.central.inbox().size()).isZero();
        assertThat(post("/api/forwarder/resume", "test-token").statusCode()).isEqualTo(200);
        assertThat(device.awaitFinal("HOLD-1").path("status").asText()).isEqualTo("accepted");
    }

    /** A POST; any answer but 200 must carry an error code. */
    @Override
    HttpResponse<String> post(String path, String token) throws Exception {
        HttpResponse<String> r = super.post(path, token);
        if (r.statusCode() != 200) {
            assertThat(DeviceSimulator.JSON.readTree(r.body()).path("error").asText())
                    .isNotEmpty();
        }
        return r;
    }
}
