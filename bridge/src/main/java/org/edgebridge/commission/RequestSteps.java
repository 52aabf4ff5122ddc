package org.edgebridge.commission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.edgebridge.forward.ForwarderSettings;
import org.edgebridge.forward.auth.ClientCertificate;
import org.edgebridge.forward.auth.OAuth2Settings;
import org.edgebridge.forward.auth.OAuth2Tokens;
import org.edgebridge.forward.auth.TlsContexts;
import org.edgebridge.forward.auth.TokenUnavailable;
import org.jspecify.annotations.Nullable;

/**
 * The steps on the JDK's HTTP client, set up as the forwarder's (proxy, trust, client certificate, HTTP/1.1, no
 * redirects): the OAuth2 token ({@code oauth2-token}), the check request of docs/protocol.md §2.1 — {@code events}
 * empty and no {@code expired}, which central authenticates, applies nothing for and answers {@code 200} with
 * {@code {"receipts":[]}} ({@code request}) — and the clock's skew against that reply's {@code Date}
 * ({@code clock}). One use.
 */
final class RequestSteps {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_REPLY_BYTES = 64 * 1024;

    private final ForwarderSettings settings;
    private final Clock clock;
    private final HttpClient http;
    private @Nullable String bearer;
    private @Nullable String dateHeader;
    private Instant sent = Instant.EPOCH;
    private Instant received = Instant.EPOCH;

    RequestSteps(ForwarderSettings settings, Deadline deadline, Clock clock, Optional<ClientCertificate> certificate) {
        this.settings = settings;
        this.clock = clock;
        HttpClient.Builder builder = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(deadline.each())
                .followRedirects(HttpClient.Redirect.NEVER);
        if (settings.credentials().caFile().isPresent() || certificate.isPresent()) {
            builder.sslContext(TlsContexts.of(settings.credentials().caFile(), certificate));
        }
        settings.central()
                .proxy()
                .ifPresent(
                        p -> builder.proxy(ProxySelector.of(new InetSocketAddress(p.getHost(), StepHelpers.port(p)))));
        this.http = builder.build();
    }

    /** The token step: a token from ingest.oauth2.tokenUrl, or what else authenticates the request. */
    CheckStep token() {
        Optional<OAuth2Settings> oauth2 = settings.credentials().oauth2();
        if (oauth2.isEmpty()) {
            bearer = settings.credentials().token().orElse(null);
            return CheckStep.skip(
                    "oauth2-token",
                    "no ingest.oauth2.tokenUrl; "
                            + (bearer != null
                                    ? "the fixed ingest.token is sent (the request step checks it)"
                                    : "no bearer token is sent"));
        }
        long start = System.nanoTime();
        OAuth2Tokens tokens = new OAuth2Tokens(
                oauth2.get(), () -> http, settings.requests().timeout(), StepHelpers::rootMessage, clock);
        try {
            bearer = tokens.bearer();
        } catch (TokenUnavailable e) {
            String reason = String.valueOf(e.getMessage());
            int hint = reason.indexOf(": check ");
            if (hint > 0) { // the token endpoint's answer names the key to check
                return CheckStep.fail(
                        "oauth2-token",
                        reason.substring(0, hint),
                        reason.substring(hint + 2),
                        StepHelpers.since(start));
            }
            return CheckStep.fail(
                    "oauth2-token",
                    reason,
                    "check ingest.oauth2.tokenUrl (host, port, path) and that this box "
                            + "reaches it (through ingest.proxy when set)",
                    StepHelpers.since(start));
        }
        var status = tokens.status();
        return CheckStep.pass(
                "oauth2-token",
                "a Bearer token from " + status.tokenUrl() + " for " + status.clientId()
                        + status.scope().map(s -> " (scope " + s + ")").orElse("")
                        + status.tokenExpiresAt()
                                .map(at -> ", valid until " + at)
                                .orElse(", no expiry given"),
                StepHelpers.since(start));
    }

    /** The check request; {@code blockedBy} is the earlier step that failed on the way to central, if one did. */
    CheckStep request(Optional<String> blockedBy, boolean tokenFailed) {
        if (blockedBy.isPresent()) {
            return CheckStep.skip("request", "not sent: the " + blockedBy.get() + " step failed");
        }
        if (tokenFailed) {
            return CheckStep.skip("request", "not sent: no token (the oauth2-token step failed)");
        }
        long start = System.nanoTime();
        ObjectNode body = JSON.createObjectNode();
        body.put("edgeId", settings.central().edgeId());
        String batchId = "check-" + HexFormat.of().formatHex(SecureRandom.getSeed(8));
        body.put("batchId", batchId);
        body.putArray("events");
        HttpRequest.Builder request = HttpRequest.newBuilder(settings.central().url())
                .timeout(settings.requests().timeout())
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", batchId)
                .POST(HttpRequest.BodyPublishers.ofByteArray(
                        settings.central().compression().encode(body.toString().getBytes(StandardCharsets.UTF_8))));
        settings.central().compression().contentEncoding().ifPresent(e -> request.header("Content-Encoding", e));
        if (bearer != null) {
            request.header("Authorization", "Bearer " + bearer);
        }
        sent = clock.instant();
        CompletableFuture<HttpResponse<InputStream>> exchange =
                http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        HttpResponse<InputStream> response;
        byte[] reply;
        try {
            response = exchange.get(settings.requests().timeout().toMillis(), TimeUnit.MILLISECONDS);
            try (InputStream in = response.body()) {
                reply = in.readNBytes(MAX_REPLY_BYTES);
            }
        } catch (TimeoutException e) {
            exchange.cancel(true);
            return CheckStep.fail(
                    "request",
                    "central did not answer within ingest.timeout ("
                            + settings.requests().timeout().toMillis()
                            + " ms)",
                    "check that central runs and answers; raise ingest.timeout only if central is known to "
                            + "be this "
                            + "slow",
                    StepHelpers.since(start));
        } catch (ExecutionException | IOException e) {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            return CheckStep.fail(
                    "request",
                    "the request got no answer: " + StepHelpers.rootMessage(cause),
                    "the steps above passed, so central (or the proxy) dropped the request: check central's log for "
                            + "this batchId " + batchId,
                    StepHelpers.since(start));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            exchange.cancel(true);
            return CheckStep.fail("request", "interrupted", "run the check again", StepHelpers.since(start));
        }
        received = clock.instant();
        dateHeader = response.headers().firstValue("Date").orElse(null);
        return answer(response.statusCode(), reply, batchId, StepHelpers.since(start));
    }

    private CheckStep answer(int status, byte[] reply, String batchId, long millis) {
        String said = said(reply);
        if (status >= 200 && status < 300) {
            JsonNode receipts = parse(reply).path("receipts");
            if (receipts.isArray() && receipts.isEmpty()) {
                return CheckStep.pass(
                        "request",
                        "central took the check request (batchId " + batchId + ", no events) with " + status
                                + " and no receipts, as docs/protocol.md §2.1 says" + authenticated(),
                        millis);
            }
            return CheckStep.fail(
                    "request",
                    "central answered " + status + " but not with an empty receipts array" + said,
                    "check that ingest.url is central's ingest endpoint (not a maintenance page or another API)",
                    millis);
        }
        String fix = switch (status) {
            case 401, 403 ->
                settings.credentials().oauth2().isPresent()
                        ? "central does not take the token from ingest.oauth2.tokenUrl: "
                                + "check ingest.oauth2.scope and ingest.oauth2.audience with central's team"
                        : "check ingest.token (or the file in ingest.tokenFile) with central's team";
            case 404, 405, 410 -> "check the path in ingest.url (central's ingest endpoint, e.g. /ingest)";
            case 407 ->
                "the proxy wants a login, and the bridge sends none: ask the proxy's admin to let this box "
                        + "through";
            case 400, 422 ->
                "central does not take a request with no events: it does not implement the check of "
                        + "docs/protocol.md §2.1 (tell central's team)";
            case 413 -> "central refuses even an empty request as too large: tell central's team";
            default ->
                status >= 500
                        ? "central itself fails: tell central's team (the bridge would wait and retry)"
                        : "check ingest.url with central's team";
        };
        return CheckStep.fail("request", "central answered " + status + said, fix, millis);
    }

    private String authenticated() {
        return settings.credentials().oauth2().isPresent()
                ? " (with the OAuth2 token)"
                : bearer != null ? " (with ingest.token)" : " (no token sent)";
    }

    /** The clock step, from the {@code Date} of the request's reply. */
    CheckStep clock() {
        String date = dateHeader;
        if (date == null) {
            return received.equals(Instant.EPOCH)
                    ? CheckStep.skip("clock", "no reply from central to read its Date from")
                    : CheckStep.skip("clock", "central's reply had no Date header: the skew cannot be measured");
        }
        Optional<ClockSkew> skew = ClockSkew.of(date, sent, received);
        if (skew.isEmpty()) {
            return CheckStep.skip("clock", "central's Date header '" + date + "' is not an HTTP date");
        }
        if (skew.get().tooLarge()) {
            return CheckStep.fail(
                    "clock",
                    skew.get().describe() + " (its Date: " + date + "); more than " + ClockSkew.MAX.toSeconds() + " s",
                    "set the box's time: turn on NTP (timedatectl set-ntp true) and "
                            + "check that it reaches a time server; central reads the commands' receivedAt and "
                            + "expiresAt by its "
                            + "own clock",
                    0);
        }
        return CheckStep.pass("clock", skew.get().describe() + ", within " + ClockSkew.MAX.toSeconds() + " s", 0);
    }

    private static JsonNode parse(byte[] reply) {
        try {
            JsonNode node = JSON.readTree(reply);
            return node == null ? JSON.missingNode() : node;
        } catch (IOException e) {
            return JSON.missingNode();
        }
    }

    /** What central said in its error body ({@code message} or {@code error}), if anything. */
    private static String said(byte[] reply) {
        JsonNode node = parse(reply);
        String message = node.path("message").asText(node.path("error").asText(""));
        if (message.isEmpty()) {
            String text = new String(reply, 0, Math.min(reply.length, 200), StandardCharsets.UTF_8).strip();
            return text.isEmpty() ? "" : ": '" + text.replaceAll("\\s+", " ") + "'";
        }
        return ": '" + (message.length() > 200 ? message.substring(0, 200) + "…" : message) + "'";
    }
}
