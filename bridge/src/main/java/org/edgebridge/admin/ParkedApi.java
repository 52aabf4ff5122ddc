package org.edgebridge.admin;

import com.fasterxml.jackson.core.JacksonException;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.edgebridge.outbox.AdminOutbox;
import org.edgebridge.outbox.CommandRecord;
import org.edgebridge.outbox.CommandState;
import org.edgebridge.outbox.ParkedDesk;
import org.edgebridge.receipt.ReceiptSender;
import org.jspecify.annotations.Nullable;

/**
 * The desk for parked commands (docs/desk.md): {@code GET /api/parked} groups and lists them, {@code POST
 * /api/parked/requeue} and {@code POST /api/parked/reject} decide on many at once, selected by code, by device, both,
 * or by a list of commands; at most {@link #MAX_PER_REQUEST} per request (a selection by code or device takes the
 * oldest and says whether more are left). An admin's rejection sends the device its final receipt.
 */
final class ParkedApi {
    /** Commands one bulk request decides on at most. */
    static final int MAX_PER_REQUEST = 500;
    /** Groups (code × device) {@code GET /api/parked} returns at most. */
    static final int MAX_GROUPS = 1000;

    private static final int DEFAULT_LIMIT = 200;

    private final AdminOutbox outbox;
    private final ReceiptSender receipts;
    private final Clock clock;

    ParkedApi(AdminOutbox outbox, ReceiptSender receipts, Clock clock) {
        this.outbox = outbox;
        this.receipts = receipts;
        this.clock = clock;
    }

    /** One parked command on the desk; {@code reason} is why it was parked. */
    record ParkedView(
            String deviceId,
            String commandId,
            long sequence,
            String type,
            String topic,
            String code,
            @Nullable String reason,
            int attempts,
            int retryLaters,
            Instant receivedAt,
            long ageMs) {}

    /** A command named in a bulk request. */
    record CommandKey(String deviceId, String commandId) {}

    /** The body of a bulk request: {@code code} and/or {@code deviceId}, or {@code commands}. */
    record Selection(String code, String deviceId, List<CommandKey> commands) {}

    /** {@code GET /api/parked?code=&device=&limit=}. */
    void list(Context ctx) {
        String code = idParam(ctx.queryParam("code"), "code");
        String device = idParam(ctx.queryParam("device"), "device");
        int limit = Optional.ofNullable(ctx.queryParam("limit"))
                .map(ParkedApi::limit)
                .orElse(DEFAULT_LIMIT);
        ParkedDesk desk = outbox.parked();
        Instant now = clock.instant();
        List<CommandRecord> rows = desk.list(code, device, limit + 1);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("total", outbox.reads().counts().count(CommandState.PARKED));
        List<ParkedDesk.Group> groups = desk.groups(MAX_GROUPS + 1);
        body.put(
                "groups",
                groups.subList(0, Math.min(MAX_GROUPS, groups.size())).stream()
                        .map(g -> Map.of(
                                "code",
                                g.code(),
                                "deviceId",
                                g.clientId(),
                                "commands",
                                g.commands(),
                                "oldestAgeMs",
                                Duration.between(g.oldestReceivedAt(), now).toMillis()))
                        .toList());
        body.put("moreGroups", groups.size() > MAX_GROUPS);
        body.put(
                "items",
                rows.subList(0, Math.min(limit, rows.size())).stream()
                        .map(r -> view(r, now))
                        .toList());
        body.put("more", rows.size() > limit);
        AdminServer.json(ctx, 200, body);
    }

    void requeue(Context ctx) {
        decide(ctx, ParkedDesk.Decision.REQUEUE);
    }

    void reject(Context ctx) {
        decide(ctx, ParkedDesk.Decision.REJECT);
    }

    private void decide(Context ctx, ParkedDesk.Decision decision) {
        Selection s = selection(ctx);
        List<Long> ids = new ArrayList<>();
        List<Map<String, String>> notParked = new ArrayList<>();
        boolean more = false;
        String how;
        if (s.commands() != null) {
            how = "a list of " + s.commands().size();
            for (CommandKey k : s.commands()) {
                Optional<CommandRecord> r = outbox.find(k.deviceId(), k.commandId());
                if (r.isPresent() && r.get().state() == CommandState.PARKED) {
                    ids.add(r.get().id());
                } else {
                    notParked.add(Map.of(
                            "deviceId",
                            k.deviceId(),
                            "commandId",
                            k.commandId(),
                            "state",
                            r.map(x -> x.state().dbName()).orElse("not_found")));
                }
            }
        } else {
            how = (s.code() != null ? "code=" + s.code() : "")
                    + (s.code() != null && s.deviceId() != null ? ", " : "")
                    + (s.deviceId() != null ? "device=" + s.deviceId() : "");
            List<CommandRecord> rows = outbox.parked().list(s.code(), s.deviceId(), MAX_PER_REQUEST + 1);
            more = rows.size() > MAX_PER_REQUEST;
            rows.subList(0, Math.min(MAX_PER_REQUEST, rows.size())).forEach(r -> ids.add(r.id()));
        }
        List<CommandRecord> changed =
                outbox.parked().decide(ids, decision, "by an admin from " + ctx.ip() + " (bulk: " + how + ")");
        if (decision == ParkedDesk.Decision.REJECT) {
            OutboxApi.publishFinals(outbox, receipts, changed);
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("action", decision == ParkedDesk.Decision.REQUEUE ? "requeue" : "reject");
        body.put("changed", changed.size());
        body.put(
                "commands",
                changed.stream()
                        .map(r -> Map.of("deviceId", r.clientId(), "commandId", r.commandId()))
                        .toList());
        body.put("notParked", notParked);
        body.put("more", more);
        AdminServer.json(ctx, 200, body);
    }

    private static Selection selection(Context ctx) {
        Selection s;
        try {
            s = AdminServer.JSON.readValue(ctx.bodyAsBytes(), Selection.class);
        } catch (JacksonException | RuntimeException e) {
            throw new OutboxApi.BadRequest("the body must be JSON: {\"code\":…} and/or {\"deviceId\":…}, or "
                    + "{\"commands\":[{\"deviceId\":…,\"commandId\":…}]}");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (s == null || (s.commands() == null) == (s.code() == null && s.deviceId() == null)) {
            throw new OutboxApi.BadRequest("select by code and/or deviceId, or by a list of commands (one of the two)");
        }
        idParam(s.code(), "code");
        idParam(s.deviceId(), "deviceId");
        if (s.commands() != null) {
            if (s.commands().isEmpty() || s.commands().size() > MAX_PER_REQUEST) {
                throw new OutboxApi.BadRequest("commands: 1-" + MAX_PER_REQUEST + " per request");
            }
            for (CommandKey k : s.commands()) {
                if (k == null || k.deviceId() == null || k.commandId() == null) {
                    throw new OutboxApi.BadRequest("commands: each needs deviceId and commandId");
                }
                idParam(k.deviceId(), "deviceId");
                idParam(k.commandId(), "commandId");
            }
        }
        return s;
    }

    private ParkedView view(CommandRecord r, Instant now) {
        return new ParkedView(
                r.clientId(),
                r.commandId(),
                r.sequence(),
                r.type(),
                r.topic(),
                ParkedDesk.codeOf(r),
                r.lastError() != null ? r.lastError() : r.message(),
                r.attempts(),
                r.retryLaters(),
                r.receivedAt(),
                Duration.between(r.receivedAt(), now).toMillis());
    }

    private static @Nullable String idParam(@Nullable String value, String name) {
        if (value != null && (value.isEmpty() || value.length() > OutboxApi.MAX_ID_LENGTH)) {
            throw new OutboxApi.BadRequest(name + ": must be 1-" + OutboxApi.MAX_ID_LENGTH + " characters");
        }
        return value;
    }

    private static int limit(String text) {
        try {
            int n = Integer.parseInt(text);
            if (n >= 1 && n <= OutboxApi.MAX_LIMIT) {
                return n;
            }
        } catch (NumberFormatException e) {
            // falls through
        }
        throw new OutboxApi.BadRequest("limit=" + text + ": must be a whole number from 1 to " + OutboxApi.MAX_LIMIT);
    }
}
