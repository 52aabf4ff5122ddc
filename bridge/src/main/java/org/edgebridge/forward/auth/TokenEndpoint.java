package org.edgebridge.forward.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * One token request of the client credentials grant (RFC 6749 §4.4) on the JDK's HTTP client and Jackson: a form
 * POST to {@code ingest.oauth2.tokenUrl}, the client authenticated with HTTP Basic or in the form, the secret read
 * from its file for each request (so a corrected file is used at the next one). Bounded by {@code ingest.timeout}
 * as a whole and to 64 KiB of reply. Neither the secret nor a token is ever in a message. Thread-safe.
 */
final class TokenEndpoint {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_REPLY_BYTES = 64 * 1024;

    /** Why no token came; the message names the key to check. */
    static final class Failed extends RuntimeException {
        Failed(String reason) {
            super(reason, null, false, false);
        }
    }

    private final OAuth2Settings settings;
    private final Supplier<HttpClient> http;
    private final Duration timeout;
    private final Function<Throwable, String> describe;
    private final Clock clock;

    /** @param describe says in words what a transport failure was (host, port, refused, DNS, TLS) */
    TokenEndpoint(
            OAuth2Settings settings,
            Supplier<HttpClient> http,
            Duration timeout,
            Function<Throwable, String> describe,
            Clock clock) {
        this.settings = settings;
        this.http = http;
        this.timeout = timeout;
        this.describe = describe;
        this.clock = clock;
    }

    /** @throws Failed with the reason */
    AccessToken request() {
        String secret;
        try {
            secret = SecretFile.readOwnerOnly(settings.clientSecretFile());
        } catch (IllegalArgumentException e) {
            throw new Failed("ingest.oauth2.clientSecretFile=" + settings.clientSecretFile() + ": " + e.getMessage());
        }
        Map<String, String> form = new LinkedHashMap<>();
        form.put("grant_type", "client_credentials");
        settings.scope().ifPresent(scope -> form.put("scope", scope));
        settings.audience().ifPresent(audience -> form.put("audience", audience));
        HttpRequest.Builder request = HttpRequest.newBuilder(settings.tokenUrl())
                .timeout(timeout)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Accept", "application/json");
        if (settings.clientAuth() == OAuth2Settings.ClientAuth.BASIC) {
            String pair = encode(settings.clientId()) + ":" + encode(secret);
            request.header(
                    "Authorization",
                    "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
        } else {
            form.put("client_id", settings.clientId());
            form.put("client_secret", secret);
        }
        String body = form.entrySet().stream()
                .map(e -> encode(e.getKey()) + "=" + encode(e.getValue()))
                .collect(Collectors.joining("&"));
        Instant sentAt = clock.instant();
        HttpResponse<byte[]> response =
                exchange(request.POST(HttpRequest.BodyPublishers.ofString(body)).build());
        return token(response.statusCode(), response.body(), sentAt);
    }

    /**
     * The whole exchange, reply body included, within {@code ingest.timeout} (the JDK's own request timeout ends at
     * the headers: a body that trickles in one byte every few seconds held the forwarder, and with it the token's
     * lock, for ever) and {@value #MAX_REPLY_BYTES} bytes of reply.
     */
    private HttpResponse<byte[]> exchange(HttpRequest request) {
        CompletableFuture<HttpResponse<byte[]>> exchange =
                http.get().sendAsync(request, LimitedBody.handler(MAX_REPLY_BYTES));
        try {
            return exchange.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            exchange.cancel(true);
            throw new Failed(where() + ": no whole answer within " + timeout.toMillis() + " ms (ingest.timeout)");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof IOException io && io.getCause() instanceof LimitedBody.TooLong t
                    ? t
                    : e.getCause();
            if (cause instanceof LimitedBody.TooLong) {
                throw new Failed(where() + ": " + cause.getMessage());
            }
            throw new Failed("ingest.oauth2.tokenUrl: " + describe.apply(cause));
        } catch (InterruptedException e) {
            exchange.cancel(true);
            Thread.currentThread().interrupt();
            throw new Failed(where() + ": interrupted (shutting down)");
        }
    }

    private AccessToken token(int status, byte[] reply, Instant sentAt) {
        JsonNode json;
        try {
            json = JSON.readTree(reply);
        } catch (IOException e) {
            json = null;
        }
        if (status != 200) {
            String error = json == null ? "" : json.path("error").asText("");
            String description =
                    json == null ? "" : json.path("error_description").asText("");
            throw new Failed(where() + " answered " + status + (error.isEmpty() ? "" : " " + error)
                    + (description.isEmpty() ? "" : " (" + description + ")") + hint(status, error));
        }
        String value = json == null ? "" : json.path("access_token").asText("");
        if (json == null || value.isEmpty()) {
            throw new Failed(where() + " answered 200 without an access_token");
        }
        String type = json.path("token_type").asText("");
        if (!type.toLowerCase(Locale.ROOT).equals("bearer")) {
            throw new Failed(where() + " answered a token of type '" + type + "', not Bearer");
        }
        JsonNode expiresIn = json.path("expires_in");
        Optional<Instant> expiresAt = expiresIn.canConvertToLong() && expiresIn.asLong() > 0
                ? Optional.of(sentAt.plusSeconds(expiresIn.asLong()))
                : Optional.empty();
        return new AccessToken(value, sentAt, expiresAt);
    }

    private static String hint(int status, String error) {
        if (error.equals("invalid_client") || status == 401) {
            return ": check ingest.oauth2.clientId and the secret in ingest.oauth2.clientSecretFile";
        }
        if (error.equals("invalid_scope")) {
            return ": check ingest.oauth2.scope";
        }
        return error.equals("unauthorized_client") ? ": the client may not use the client credentials grant" : "";
    }

    private String where() {
        return "ingest.oauth2.tokenUrl " + settings.tokenUrl();
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
