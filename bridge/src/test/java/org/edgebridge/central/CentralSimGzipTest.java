package org.edgebridge.central;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Optional;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The reference central takes gzipped request bodies, checks payloadSha256 on the inflated bytes, and survives a zip bomb. */
class CentralSimGzipTest {
    private static final long MAX_REQUEST_BYTES = 16L << 20;
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();
    private CentralSim central;

    @BeforeEach
    void start() {
        central = new CentralSim(Optional.empty(), MAX_REQUEST_BYTES, Clock.systemUTC()).start("127.0.0.1", 0);
    }

    @AfterEach
    void stop() {
        central.close();
    }

    @Test
    void a_gzipped_batch_is_inflated_and_applied_with_its_sha256_checked_on_the_inflated_payload() throws Exception {
        HttpResponse<String> reply = post(gzip(batch("GZ-1").getBytes(StandardCharsets.UTF_8)), "gzip");
        assertThat(reply.statusCode()).isEqualTo(200);
        JsonNode receipt = JSON.readTree(reply.body()).path("receipts").get(0);
        assertThat(receipt.path("status").asText()).isEqualTo("accepted");
        assertThat(central.inbox().size()).isEqualTo(1);
        assertThat(central.gzipRequests()).isEqualTo(1);
    }

    @Test
    void a_zip_bomb_is_answered_413_without_inflating_past_the_bound_and_central_goes_on() throws Exception {
        // 512 MiB of zeros: about 500 KiB gzipped, far under the bound as sent
        ByteArrayOutputStream bomb = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(bomb)) {
            byte[] zeros = new byte[1 << 20];
            for (int i = 0; i < 512; i++) {
                gz.write(zeros);
            }
        }
        assertThat((long) bomb.size()).isLessThan(MAX_REQUEST_BYTES);
        HttpResponse<String> reply = post(bomb.toByteArray(), "gzip");
        assertThat(reply.statusCode()).isEqualTo(413);
        assertThat(reply.body()).contains("payload_too_large");
        assertThat(post(gzip(batch("GZ-AFTER").getBytes(StandardCharsets.UTF_8)), "gzip")
                        .statusCode())
                .isEqualTo(200);
        assertThat(central.inbox().size()).isEqualTo(1);
    }

    @Test
    void a_body_that_is_not_gzip_or_an_unknown_encoding_is_refused() throws Exception {
        assertThat(post(batch("GZ-2").getBytes(StandardCharsets.UTF_8), "gzip").statusCode())
                .isEqualTo(400);
        assertThat(post(batch("GZ-3").getBytes(StandardCharsets.UTF_8), "br").statusCode())
                .isEqualTo(415);
        assertThat(central.inbox().size()).isZero();
    }

    private static String batch(String eventId) throws Exception {
        return IngestBodies.batch("dev-gz", eventId);
    }

    private static byte[] gzip(byte[] body) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(body);
        }
        return out.toByteArray();
    }

    private HttpResponse<String> post(byte[] body, String encoding) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + central.port() + "/ingest"))
                        .header("Content-Type", "application/json")
                        .header("Content-Encoding", encoding)
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
