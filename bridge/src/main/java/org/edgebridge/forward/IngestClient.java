package org.edgebridge.forward;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;

/** Sends request bodies to central with the JDK's HTTP client. Thread-safe. */
final class IngestClient {
    private final ForwarderSettings settings;
    private final HttpClient http;

    IngestClient(ForwarderSettings settings) {
        this.settings = settings;
        Duration connectTimeout = settings.timeout().compareTo(Duration.ofSeconds(10)) < 0
                ? settings.timeout() : Duration.ofSeconds(10);
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(connectTimeout)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    IngestReply post(String batchId, byte[] body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(settings.url())
                .timeout(settings.timeout())
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", batchId)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        settings.token().ifPresent(token -> request.header("Authorization", "Bearer " + token));
        try {
            HttpResponse<byte[]> response = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            return new IngestReply(response.statusCode(), response.body(), response.headers().firstValue("Retry-After"), null);
        } catch (HttpTimeoutException e) {
            return IngestReply.transportFailure("timeout after " + settings.timeout().toMillis() + " ms");
        } catch (IOException e) {
            return IngestReply.transportFailure(e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return IngestReply.transportFailure("interrupted (shutting down)");
        }
    }
}
