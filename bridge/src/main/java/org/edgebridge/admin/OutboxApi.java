package org.edgebridge.admin;

import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.edgebridge.outbox.AdminOutbox;
import org.edgebridge.outbox.CommandRecord;
import org.edgebridge.outbox.CommandState;
import org.edgebridge.outbox.HistoryEntry;
import org.edgebridge.outbox.ParkedDesk;
import org.edgebridge.receipt.ReceiptSender;
import org.jspecify.annotations.Nullable;

/**
 * {@code /api/outbox…} (docs/protocol.md §3): rows with filters and cursor paging, one row with history, requeue of a
 * parked row (park and reject: PendingApi).
 */
final class OutboxApi {
    static final int MAX_LIMIT = 1000;
    static final int MAX_ID_LENGTH = 128;

    private final AdminOutbox outbox;
    private final String edgeId;
    private final Clock clock;

    OutboxApi(AdminOutbox outbox, String edgeId, Clock clock) {
        this.outbox = outbox;
        this.edgeId = edgeId;
        this.clock = clock;
    }

    /** {@code GET /api/outbox?state=&device=&limit=&cursor=&order=asc|desc}. */
    void list(Context ctx) {
        CommandState state = null;
        String stateParam = ctx.queryParam("state");
        if (stateParam != null && !stateParam.isEmpty()) {
            try {
                state = CommandState.fromDb(stateParam);
            } catch (IllegalArgumentException e) {
                throw new BadRequest("state=" + stateParam
                        + ": must be one of pending, inflight, parked, accepted, duplicate, rejected");
            }
        }
        String device = ctx.queryParam("device");
        if (device != null && (device.isEmpty() || device.length() > MAX_ID_LENGTH)) {
            throw new BadRequest("device: must be 1-" + MAX_ID_LENGTH + " characters");
        }
        int limit = 100;
        String limitParam = ctx.queryParam("limit");
        if (limitParam != null) {
            try {
                limit = Integer.parseInt(limitParam);
            } catch (NumberFormatException e) {
                limit = -1;
            }
            if (limit < 1 || limit > MAX_LIMIT) {
                throw new BadRequest("limit=" + limitParam + ": must be a whole number from 1 to " + MAX_LIMIT);
            }
        }
        String order =
                Optional.ofNullable(ctx.queryParam("order")).orElse("asc").toLowerCase(Locale.ROOT);
        if (!order.equals("asc") && !order.equals("desc")) {
            throw new BadRequest("order=" + order + ": must be asc or desc");
        }
        boolean desc = order.equals("desc");
        long after = decodeCursor(ctx.queryParam("cursor"), desc);
        List<CommandRecord> rows = outbox.reads().list(state, device, after, limit + 1, desc);
        boolean more = rows.size() > limit;
        List<CommandView> items = new ArrayList<>();
        for (CommandRecord r : rows.subList(0, Math.min(limit, rows.size()))) {
            items.add(CommandView.of(r, null));
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("items", items);
        body.put("nextCursor", more ? encodeCursor(rows.get(limit - 1).id()) : null);
        AdminServer.json(ctx, 200, body);
    }

    /**
     * {@code GET /api/outbox/{deviceId}/{commandId}}: the row with its history of attempts and receipts, and its
     * timeline (docs/desk.md, "A command's timeline").
     */
    void one(Context ctx) {
        CommandRecord r = find(ctx);
        List<HistoryEntry> history = outbox.reads().history(r.id());
        AdminServer.json(ctx, 200, CommandView.of(r, history, timeline(r, history)));
    }

    /**
     * {@code GET …/timeline}: the timeline as a JSON file for a support ticket ({@code Content-Disposition:
     * attachment}): the site, when it was taken, the timeline, and the command with its history.
     */
    void timelineFile(Context ctx) {
        CommandRecord r = find(ctx);
        List<HistoryEntry> history = outbox.reads().history(r.id());
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("edgeId", edgeId);
        body.put("exportedAt", clock.instant());
        body.put("deviceId", r.clientId());
        body.put("commandId", r.commandId());
        body.put("timeline", timeline(r, history));
        body.put("command", CommandView.of(r, history));
        ctx.header("Content-Disposition", "attachment; filename=\"" + timelineFileName(edgeId, r) + "\"");
        AdminServer.json(ctx, 200, body);
    }

    private List<TimelineEntry> timeline(CommandRecord r, List<HistoryEntry> history) {
        return CommandTimeline.of(r, outbox.reads().life(r.id()), history);
    }

    /**
     * {@code timeline-{edgeId}-{deviceId}-{commandId}.json}, every character but letters, digits, '.', '-' and '_' made
     * '_' (the ids are the devices': nothing of them may break the header), each part at most 64 characters.
     */
    static String timelineFileName(String edgeId, CommandRecord r) {
        return "timeline-" + safe(edgeId) + "-" + safe(r.clientId()) + "-" + safe(r.commandId()) + ".json";
    }

    private static String safe(String part) {
        String cut = part.length() > 64 ? part.substring(0, 64) : part;
        return cut.replaceAll("[^A-Za-z0-9._-]", "_");
    }

    /** {@code POST …/requeue}: parked → pending. */
    void requeue(Context ctx) {
        CommandRecord r = find(ctx);
        CommandRecord after = decide(r, ParkedDesk.Decision.REQUEUE);
        AdminServer.json(ctx, 200, CommandView.of(after, outbox.reads().history(after.id())));
    }

    /** An admin's requeue of one parked command, with an audit line in its history; 409 if it is not parked. */
    private CommandRecord decide(CommandRecord r, ParkedDesk.Decision decision) {
        return outbox.parked().decide(List.of(r.id()), decision, "by an admin").stream()
                .findFirst()
                .orElseThrow(() -> notParked(r));
    }

    /** {@code GET …/payload}: the device's bytes, as text (a stored payload is JSON; the page shows it as text). */
    void payload(Context ctx) {
        CommandRecord r = find(ctx);
        byte[] bytes = outbox.parked()
                .payload(r.clientId(), r.commandId())
                .orElseThrow(
                        () -> new ApiError(404, "not_found", "command " + r.commandId() + " has no payload any more"));
        ctx.header("X-Content-Type-Options", "nosniff")
                .contentType("text/plain; charset=utf-8")
                .result(bytes);
    }

    /** Hands the final receipts of commands an admin rejected to the broker, in order per device, and marks them. */
    static void publishFinals(AdminOutbox outbox, ReceiptSender receipts, List<CommandRecord> rejected) {
        List<Long> published = receipts.sendFinals(rejected, false);
        if (!published.isEmpty()) {
            outbox.markPublished(published);
        }
    }

    private CommandRecord find(Context ctx) {
        return find(outbox, ctx);
    }

    /** The command the path names ({@code {deviceId}/{commandId}}): 400 for an id too long, 404 for an unknown one. */
    static CommandRecord find(AdminOutbox outbox, Context ctx) {
        String device = ctx.pathParam("deviceId");
        String command = ctx.pathParam("commandId");
        if (device.length() > MAX_ID_LENGTH || command.length() > MAX_ID_LENGTH) {
            throw new BadRequest("deviceId and commandId must be at most " + MAX_ID_LENGTH + " characters");
        }
        return outbox.find(device, command)
                .orElseThrow(() -> new ApiError(
                        404, "not_found", "no command " + command + " of device " + device + " in the outbox"));
    }

    private static ApiError notParked(CommandRecord r) {
        return new ApiError(
                409,
                "not_parked",
                "command " + r.commandId() + " is " + r.state().dbName() + "; only parked commands can be requeued");
    }

    static String encodeCursor(long id) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(("id:" + id).getBytes(StandardCharsets.UTF_8));
    }

    private static long decodeCursor(@Nullable String cursor, boolean desc) {
        if (cursor == null || cursor.isEmpty()) {
            return desc ? Long.MAX_VALUE : 0;
        }
        try {
            String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
            if (text.startsWith("id:")) {
                long id = Long.parseLong(text.substring(3));
                if (id >= 0) {
                    return id;
                }
            }
        } catch (IllegalArgumentException e) {
            // falls through to the error below
        }
        throw new BadRequest("cursor: not a cursor this API returned (use nextCursor from the previous page)");
    }

    /** An error with its HTTP status and a stable code. */
    static class ApiError extends RuntimeException {
        final int status;
        final String code;

        ApiError(int status, String code, String message) {
            super(message, null, false, false);
            this.status = status;
            this.code = code;
        }
    }

    /** 400 with code {@code bad_request}. */
    static final class BadRequest extends ApiError {
        BadRequest(String message) {
            super(400, "bad_request", message);
        }
    }
}
