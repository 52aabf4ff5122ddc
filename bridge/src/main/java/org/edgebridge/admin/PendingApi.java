package org.edgebridge.admin;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import io.javalin.http.Context;
import java.util.List;
import org.edgebridge.broker.RefusalLog;
import org.edgebridge.outbox.AdminOutbox;
import org.edgebridge.outbox.CommandRecord;
import org.edgebridge.outbox.PendingDesk;
import org.edgebridge.receipt.ReceiptSender;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An admin's remedy for one command that is not final (docs/desk.md, "Pending commands"): {@code POST
 * /api/outbox/{deviceId}/{commandId}/park} sets a pending command aside (parked, {@code parked_by_admin}); {@code POST
 * …/reject} rejects a pending or a parked one (final {@code rejected} / {@code rejected_by_admin}, its receipt to the
 * device). A command in flight with central right now is refused with 409 {@code in_flight} (ask again once its
 * request settled, within {@code ingest.timeout}); a final one with 409 {@code already_final}. A rejection of a command
 * that may have reached central before says so: {@code maybeSentToCentral} and a {@code warning}. Each action writes a
 * history line and a log line.
 */
final class PendingApi {
    private static final Logger LOG = LoggerFactory.getLogger(PendingApi.class);

    private final AdminOutbox outbox;
    private final ReceiptSender receipts;

    PendingApi(AdminOutbox outbox, ReceiptSender receipts) {
        this.outbox = outbox;
        this.receipts = receipts;
    }

    /** The answer: the command as it is now (with its history), what was done, and whether central may have seen it. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record ActionView(
            String action,
            boolean maybeSentToCentral,
            @Nullable String warning,
            @JsonUnwrapped CommandView command) {}

    /** {@code POST …/park}: pending → parked / {@code parked_by_admin}. */
    void park(Context ctx) {
        CommandRecord r = OutboxApi.find(outbox, ctx);
        PendingDesk.Action done =
                outbox.pendingDesk().park(r.clientId(), r.commandId(), by(ctx)).orElseThrow(() -> gone(r));
        CommandRecord after = done.after().orElseThrow(() -> refused(done.before(), "parked"));
        LOG.info(
                "admin action park: {} parked command {} of device {} (was pending, {} attempts{})",
                ctx.ip(),
                RefusalLog.quote(after.commandId()),
                RefusalLog.quote(after.clientId()),
                after.attempts(),
                done.maybeSent() ? ", may have reached central" : ", never sent to central");
        answer(ctx, "park", after, done.maybeSent(), null);
    }

    /**
     * {@code POST …/reject}: pending or parked → rejected / {@code rejected_by_admin}; the final receipt goes to the
     * device.
     */
    void reject(Context ctx) {
        CommandRecord r = OutboxApi.find(outbox, ctx);
        PendingDesk.Action done = outbox.pendingDesk()
                .reject(r.clientId(), r.commandId(), by(ctx))
                .orElseThrow(() -> gone(r));
        CommandRecord after = done.after().orElseThrow(() -> refused(done.before(), "rejected"));
        boolean maybeSent = done.maybeSent();
        OutboxApi.publishFinals(outbox, receipts, List.of(after));
        String warning = null;
        if (maybeSent) {
            warning = "command " + after.commandId() + " was sent to central before (" + after.attempts()
                    + " attempts) and "
                    + "never got a final answer: central may have applied it although its device now holds a final "
                    + "'rejected' receipt; check central's record of this command";
            LOG.warn(
                    "admin action reject: {} rejected command {} of device {} (was {}); it may have reached central, "
                            + "which may have applied it",
                    ctx.ip(),
                    RefusalLog.quote(after.commandId()),
                    RefusalLog.quote(after.clientId()),
                    done.before().state().dbName());
        } else {
            LOG.info(
                    "admin action reject: {} rejected command {} of device {} (was {}, never sent to central)",
                    ctx.ip(),
                    RefusalLog.quote(after.commandId()),
                    RefusalLog.quote(after.clientId()),
                    done.before().state().dbName());
        }
        answer(ctx, "reject", after, maybeSent, warning);
    }

    private void answer(Context ctx, String action, CommandRecord after, boolean maybeSent, @Nullable String warning) {
        AdminServer.json(
                ctx,
                200,
                new ActionView(
                        action,
                        maybeSent,
                        warning,
                        CommandView.of(after, outbox.reads().history(after.id()))));
    }

    private static String by(Context ctx) {
        return "by an admin from " + ctx.ip();
    }

    private static OutboxApi.ApiError gone(CommandRecord r) {
        return new OutboxApi.ApiError(
                404,
                "not_found",
                "command " + r.commandId() + " of device " + r.clientId() + " is no longer in the outbox");
    }

    /** 409 when the command was in flight, parked (for a park) or final when the action looked at it. */
    private static RuntimeException refused(CommandRecord now, String would) {
        String what = "command " + now.commandId() + " of device " + now.clientId();
        return switch (now.state()) {
            case INFLIGHT ->
                new OutboxApi.ApiError(
                        409,
                        "in_flight",
                        what + " is in flight with central right now; it is "
                                + "not " + would
                                + " while its request may still be applied. Ask again in a few seconds: the request "
                                + "settles within ingest.timeout");
            case PARKED ->
                new OutboxApi.ApiError(409, "already_parked", what + " is parked already: requeue or reject it");
            case ACCEPTED, DUPLICATE, REJECTED ->
                new OutboxApi.ApiError(
                        409,
                        "already_final",
                        what + " is final (" + now.state().dbName() + (now.code() != null ? " / " + now.code() : "")
                                + "); it cannot be " + would);
            // the check and the change are one transaction: a pending command is always changed
            case PENDING -> new IllegalStateException(what + " is pending but was not " + would);
        };
    }
}
