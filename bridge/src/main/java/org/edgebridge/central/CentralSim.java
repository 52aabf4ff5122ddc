package org.edgebridge.central;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reference central (docs/protocol.md §2, server side): {@code POST /ingest} answers one receipt per event from an
 * {@link Inbox} that deduplicates on (deviceId, eventId). For tests and demos it also serves
 * {@code GET /sim/inbox}, {@code GET /sim/stats} and {@code POST /sim/faults} (fault injection).
 *
 * <p>Threads: Jetty's pool, owned by Javalin; the inbox is synchronized.
 */
public final class CentralSim implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CentralSim.class);
    /** Inbox entries hold an {@link java.time.Instant}: written as ISO-8601 text, as the receipts' appliedAt is. */
    private static final ObjectMapper JSON = new ObjectMapper()
            .registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

    private final Inbox inbox;
    private final Clock clock;
    private final Predicate<String> authorized;
    private final Javalin app;
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong checks = new AtomicLong();
    private final HeldReplies held = new HeldReplies();
    private final IngestLog log;
    private final EventReceipts eventReceipts;
    private volatile Faults faults = Faults.NONE;
    private final long maxRequestBytes;
    private final ReplyDelay replyDelay = new ReplyDelay();

    /**
     * @param maxRequestBytes the largest request body, as sent and (gzip) once inflated; a larger one is answered 413
     */
    public CentralSim(Optional<String> token, long maxRequestBytes, Clock clock) {
        this(header -> token.isEmpty() || ("Bearer " + token.get()).equals(header), maxRequestBytes, clock);
    }

    /**
     * @param authorized whether a request's {@code Authorization} header (null: none) is let in; else 401, e.g. a
     *     check of an OAuth2 token with its authorization server
     */
    public CentralSim(Predicate<String> authorized, long maxRequestBytes, Clock clock) {
        this.clock = clock;
        this.inbox = new Inbox(clock);
        this.log = new IngestLog(clock);
        this.eventReceipts = new EventReceipts(JSON, inbox);
        this.authorized = authorized;
        this.maxRequestBytes = maxRequestBytes;
        this.app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            config.http.maxRequestSize = maxRequestBytes;
            // a token must match case and all on a kept-alive connection too (see AdminServer)
            config.jetty.modifyHttpConfiguration(http -> http.setHeaderCacheCaseSensitive(true));
            config.routes.post("/ingest", ctx -> {
                ingest(ctx);
                replyDelay.hold(ctx);
            });
            config.routes.post("/sim/reply-delay", this::setReplyDelay);
            config.routes.get("/sim/inbox", ctx -> json(ctx, 200, JSON.valueToTree(inbox.entries())));
            config.routes.get("/sim/stats", this::stats);
            config.routes.post("/sim/faults", this::setFaults);
            config.routes.get("/health", ctx -> ctx.result("ok"));
        });
    }

    public CentralSim start(String host, int port) {
        app.start(host, port);
        LOG.info("reference central listening on http://{}:{}/ingest", host, app.port());
        return this;
    }

    /**
     * Each {@code /ingest} answer leaves {@code delay} after its request was applied (a central far away): {@link
     * ReplyDelay}.
     */
    public CentralSim replyDelay(Duration delay) {
        replyDelay.set(delay);
        LOG.info("reference central: answers leave {} ms after their request was applied", delay.toMillis());
        return this;
    }

    private void setReplyDelay(Context ctx) {
        try {
            replyDelay(Duration.ofMillis(Long.parseLong(String.valueOf(ctx.queryParam("ms")))));
        } catch (IllegalArgumentException e) {
            error(ctx, 400, "invalid_delay", "ms must be a whole number of milliseconds, 0 or more: " + e.getMessage());
            return;
        }
        ctx.result("{\"ms\":" + replyDelay.millis() + "}").contentType("application/json");
    }

    public int port() {
        return app.port();
    }

    public Inbox inbox() {
        return inbox;
    }

    /** Ends every reply held by a {@code hold_reply} fault now, instead of at the end of its {@code holdMs}. */
    public void releaseHeldReplies() {
        held.releaseAll();
    }

    /** Requests whose reply is being held by a {@code hold_reply} fault right now. */
    public long holdingReplies() {
        return held.holding();
    }

    public void faults(Faults faults) {
        this.faults = faults;
    }

    private void ingest(Context ctx) throws IOException {
        requests.incrementAndGet();
        // central's own clock, not the server library's: a test can set the sim's clock off to check the skew
        ctx.header(
                "Date",
                DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.ofInstant(clock.instant(), ZoneOffset.UTC)));
        if (!authorized.test(ctx.header("Authorization"))) {
            log.request(0, 401);
            error(ctx, 401, "unauthorized", "a valid bearer token is required");
            return;
        }
        Faults f = takeFault();
        if (f.mode().equals("status")) {
            f.retryAfterHeader(clock).ifPresent(value -> ctx.header("Retry-After", value));
            log.request(0, f.httpStatus());
            error(ctx, f.httpStatus(), "fault", "injected fault: HTTP " + f.httpStatus());
            return;
        }
        byte[] raw;
        try {
            byte[] sent = ctx.bodyAsBytes();
            raw = RequestBodies.decode(sent, ctx.header("Content-Encoding"), maxRequestBytes);
            log.body(sent.length, raw.length, raw != sent);
        } catch (RequestBodies.TooLarge e) {
            log.request(0, 413);
            error(ctx, 413, "payload_too_large", e.getMessage());
            return;
        } catch (RequestBodies.UnknownEncoding e) {
            log.request(0, 415);
            error(ctx, 415, "unsupported_encoding", e.getMessage());
            return;
        } catch (IOException e) {
            log.request(0, 400);
            error(ctx, 400, "invalid_gzip", "request body is not valid gzip: " + e.getMessage());
            return;
        }
        JsonNode body;
        List<byte @Nullable []> payloads;
        try {
            body = JSON.readTree(raw);
            payloads = RawPayloads.of(raw);
        } catch (IOException e) {
            log.request(0, 400);
            error(ctx, 400, "invalid_json", "request body is not JSON");
            return;
        }
        JsonNode events = body == null ? null : body.get("events");
        if (events == null || !events.isArray()) {
            log.request(0, 400);
            error(ctx, 400, "invalid_request", "request must be an object with an events array");
            return;
        }
        if (f.mode().equals("poison_500")) {
            for (JsonNode e : events) {
                if (e.path("eventId").asText().equals(f.poisonEventId())) {
                    int status = f.httpStatus() == 0 ? 500 : f.httpStatus();
                    log.request(events.size(), status);
                    error(ctx, status, "fault", "injected fault: event " + f.poisonEventId() + " breaks central");
                    return;
                }
            }
        }
        if (f.mode().equals("poison_400")) {
            for (JsonNode e : events) {
                if (e.path("payload").path("poison").asBoolean()) {
                    log.request(events.size(), 400);
                    error(
                            ctx,
                            400,
                            "invalid_event",
                            "event " + e.path("eventId").asText() + " is poisoned");
                    return;
                }
            }
        }
        // order is kept per (edgeId, deviceId): each bridge numbers its own commands (docs/protocol.md §2.2)
        String edgeId = body.path("edgeId").asText("");
        if (events.isEmpty() && !body.has("expired")) {
            // the check request (docs/protocol.md §2.1, edge-bridge check-central): authenticated, nothing applied
            checks.incrementAndGet();
            log.request(0, 200);
            json(ctx, 200, JSON.createObjectNode().set("receipts", JSON.createArrayNode()));
            return;
        }
        // commands that expired at the edge before it sent them: told before the events that follow them
        for (JsonNode x : body.path("expired")) {
            if (x.path("eventId").isTextual()
                    && x.path("deviceId").isTextual()
                    && x.path("sequence").canConvertToLong()) {
                inbox.expired(
                        edgeId,
                        x.get("deviceId").asText(),
                        x.get("eventId").asText(),
                        x.get("sequence").asLong());
            }
        }
        ArrayNode receipts = JSON.createArrayNode();
        for (int i = 0; i < events.size(); i++) {
            ObjectNode r =
                    eventReceipts.receipt(edgeId, events.get(i), i < payloads.size() ? payloads.get(i) : null, f);
            if (!f.mode().equals("omit_receipts")) {
                receipts.add(r);
            }
        }
        if (f.mode().equals("lose_reply")) {
            log.request(events.size(), 500);
            error(ctx, 500, "fault", "injected fault: applied, but the reply was lost");
            return;
        }
        if (f.mode().equals("hold_reply")) {
            held.hold(f.holdMs());
        }
        ObjectNode reply = JSON.createObjectNode();
        reply.set("receipts", receipts);
        int status = f.mode().equals("answer_status") ? f.httpStatus() : 200;
        log.request(events.size(), status);
        json(ctx, status, reply);
    }

    /** Check requests answered (docs/protocol.md §2.1: no events, no expired list; nothing applied). */
    public long checks() {
        return checks.get();
    }

    /** Requests whose body came gzipped ({@code Content-Encoding: gzip}) and inflated within the bound. */
    public long gzipRequests() {
        return log.gzipRequests();
    }

    /** Request body bytes as they came over the wire, and as read once inflated: {@code [wire, inflated]}. */
    public long[] bodyBytes() {
        return log.bodyBytes();
    }

    /** One request as central saw it: when, how many events, what it answered. */
    public record Request(Instant at, int events, int status) {}

    /** Every request so far (at most a million), oldest first. */
    public List<Request> requestLog() {
        return log.requests();
    }

    private synchronized Faults takeFault() {
        Faults f = faults;
        faults = f.next();
        if (f.mode().equals("chaos")) {
            return switch (ThreadLocalRandom.current().nextInt(5)) {
                case 0 -> Faults.status(503, 1, 1);
                case 1 -> Faults.status(429, 1, 1);
                case 2 -> Faults.of("lose_reply", 1);
                case 3 -> new Faults("hold_reply", 0, null, false, 0, f.holdMs(), 1);
                default -> Faults.NONE;
            };
        }
        return f;
    }

    private void setFaults(Context ctx) throws IOException {
        Faults f;
        try {
            f = JSON.readValue(ctx.bodyAsBytes(), Faults.class);
        } catch (IOException | IllegalArgumentException e) {
            error(ctx, 400, "invalid_faults", "body must be a Faults object: " + e.getMessage());
            return;
        }
        faults = f;
        LOG.info("fault injection: {}", f);
        json(ctx, 200, JSON.valueToTree(f));
    }

    private void stats(Context ctx) {
        ObjectNode s = JSON.valueToTree(inbox.stats());
        s.put("requests", requests.get());
        s.put("checks", checks.get());
        s.put("replyDelayMs", replyDelay.millis());
        s.put("delayedReplies", replyDelay.delayedReplies());
        s.set("answersByEdge", JSON.valueToTree(inbox.answersByEdge()));
        json(ctx, 200, s);
    }

    private static void error(Context ctx, int status, String error, @Nullable String message) {
        ObjectNode e = JSON.createObjectNode();
        e.put("error", error);
        e.put("message", message);
        json(ctx, status, e);
    }

    private static void json(Context ctx, int status, JsonNode node) {
        try {
            ctx.status(status).contentType("application/json").result(JSON.writeValueAsBytes(node));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        app.stop();
        replyDelay.close();
    }
}
