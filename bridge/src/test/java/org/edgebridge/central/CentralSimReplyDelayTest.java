package org.edgebridge.central;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A reference central far away ({@code --delay-ms}): it still applies each event once and answers every request whole. */
class CentralSimReplyDelayTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();
    private CentralSim central;

    @BeforeEach
    void start() {
        central = new CentralSim(Optional.empty(), 16L << 20, Clock.systemUTC()).start("127.0.0.1", 0);
    }

    @AfterEach
    void stop() {
        central.close();
    }

    @Test
    void requests_in_flight_together_are_each_applied_and_answered_in_full_after_the_delay() throws Exception {
        central.replyDelay(Duration.ofMillis(200));
        List<CompletableFuture<HttpResponse<String>>> replies = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            replies.add(HTTP.sendAsync(
                    ingest(IngestBodies.batch("dev-far-" + i, "FAR-" + i)), HttpResponse.BodyHandlers.ofString()));
        }
        for (CompletableFuture<HttpResponse<String>> reply : replies) {
            HttpResponse<String> r = reply.join();
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(r.body())
                            .path("receipts")
                            .get(0)
                            .path("status")
                            .asText())
                    .isEqualTo("accepted");
        }
        assertThat(central.inbox().size()).isEqualTo(4);
        JsonNode stats = get("/sim/stats");
        assertThat(stats.path("replyDelayMs").asLong()).isEqualTo(200);
        assertThat(stats.path("delayedReplies").asLong()).isEqualTo(4);
    }

    @Test
    void the_delay_is_set_over_http_and_a_negative_or_unreadable_one_is_refused() throws Exception {
        assertThat(postDelay("50").statusCode()).isEqualTo(200);
        assertThat(postDelay("-1").statusCode()).isEqualTo(400);
        assertThat(postDelay("soon").statusCode()).isEqualTo(400);
        assertThat(get("/sim/stats").path("replyDelayMs").asLong()).isEqualTo(50);
    }

    @Test
    void without_a_delay_no_answer_is_held() throws Exception {
        assertThat(HTTP.send(ingest(IngestBodies.batch("dev-near", "NEAR-1")), HttpResponse.BodyHandlers.ofString())
                        .statusCode())
                .isEqualTo(200);
        assertThat(get("/sim/stats").path("delayedReplies").asLong()).isZero();
    }

    private HttpRequest ingest(String body) {
        return HttpRequest.newBuilder(uri("/ingest"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }

    private HttpResponse<String> postDelay(String ms) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(uri("/sim/reply-delay?ms=" + ms))
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode get(String path) throws Exception {
        return JSON.readTree(HTTP.send(HttpRequest.newBuilder(uri(path)).build(), HttpResponse.BodyHandlers.ofString())
                .body());
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + central.port() + path);
    }
}
