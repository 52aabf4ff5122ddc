package org.edgebridge.outbox;

import java.sql.SQLException;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.edgebridge.code.ReceiptCode;

/**
 * An admin's remedy for one command that is not final, also while it is still <em>pending</em> (docs/desk.md, "Pending
 * commands"): a poison event the forwarder has not isolated yet, or any command an admin wants out of the way. {@link
 * #park} sets a pending one aside (parked with the code {@link ReceiptCode#PARKED_BY_ADMIN}: its device's later
 * commands wait behind it, and the desk's requeue and reject work on it as on any parked command); {@link #reject}
 * makes a pending or parked one final at once ({@code rejected} / {@code rejected_by_admin}). One in flight with
 * central right now is left alone (its request settles within {@code ingest.timeout}; the admin asks again), a final
 * one too. The check and the change are one write transaction on the outbox's one writer, so a claim cannot slip in
 * between. Each change writes one history line ({@code parked_by_admin} or {@code rejected_by_admin}). Thread-safe.
 */
public final class PendingDesk {

    /**
     * What an admin's action on one command found and did.
     *
     * @param before the command as it was when the action looked at it
     * @param after the command as the action left it; empty when it was left alone (then {@code before} says why)
     * @param maybeSent whether an earlier claim of the command may have reached central (central may have applied it)
     */
    public record Action(CommandRecord before, Optional<CommandRecord> after, boolean maybeSent) {}

    private final ParkedDesk.Writes writes;
    private final Clock clock;
    private final AtomicLong openRows;

    PendingDesk(ParkedDesk.Writes writes, Clock clock, AtomicLong openRows) {
        this.writes = writes;
        this.clock = clock;
        this.openRows = openRows;
    }

    /**
     * Parks the command if it is pending, with a history line saying {@code detail}.
     *
     * @return empty when the outbox has no such command
     */
    public Optional<Action> park(String clientId, String commandId, String detail) {
        long now = clock.millis();
        return writes.write(sql -> findIn(sql, clientId, commandId, before -> {
            String reason =
                    "parked by an admin" + (before.lastError() != null ? "; before: " + before.lastError() : "");
            int changed = sql.get(AdminSql.PARK_PENDING)
                    .set("id", before.id())
                    .set("reason", reason)
                    .update();
            return done(
                    sql, before, changed, maybeSent(sql, before.id()), ReceiptCode.PARKED_BY_ADMIN.wire(), detail, now);
        }));
    }

    /**
     * Rejects the command if it is pending or parked: final {@code rejected} / {@link ReceiptCode#REJECTED_BY_ADMIN},
     * with a history line saying {@code detail}; the caller publishes its receipt. The message of a pending one (in the
     * device's receipt) says whether central may have seen it.
     *
     * @return empty when the outbox has no such command
     */
    public Optional<Action> reject(String clientId, String commandId, String detail) {
        long now = clock.millis();
        Optional<Action> action = writes.write(sql -> findIn(sql, clientId, commandId, before -> {
            boolean maybeSent = maybeSent(sql, before.id());
            String message = "rejected by an admin while pending"
                    + (maybeSent
                            ? "; it was sent to central before, which may have applied it"
                            : "; central never saw it");
            int changed = before.state() == CommandState.PARKED
                    ? sql.get(AdminSql.REJECT)
                            .set("id", before.id())
                            .set("now", now)
                            .update()
                    : sql.get(AdminSql.REJECT_PENDING)
                            .set("id", before.id())
                            .set("message", message)
                            .set("now", now)
                            .update();
            return done(sql, before, changed, maybeSent, ReceiptCode.REJECTED_BY_ADMIN.wire(), detail, now);
        }));
        if (action.isPresent() && action.get().after().isPresent()) {
            openRows.decrementAndGet();
        }
        return action;
    }

    /** What {@code action} makes of the command as it is now; empty when the outbox has no such command. */
    private static Optional<Action> findIn(NamedStatements sql, String clientId, String commandId, ActionOn action)
            throws SQLException {
        Optional<CommandRecord> before =
                sql.get(OutboxSql.FIND).set("c", clientId).set("id", commandId).first(OutboxRows::commandRecord);
        return before.isPresent() ? Optional.of(action.take(before.get())) : Optional.empty();
    }

    /** An action on a command found. */
    @FunctionalInterface
    private interface ActionOn {
        Action take(CommandRecord before) throws SQLException;
    }

    private static boolean maybeSent(NamedStatements sql, long id) throws SQLException {
        return sql.get(AdminSql.MAYBE_SENT)
                .set("id", id)
                .first(rs -> rs.getBoolean(1))
                .orElse(false);
    }

    /** The action's outcome; when the row changed, its history line and the row as it is now. */
    private static Action done(
            NamedStatements sql,
            CommandRecord before,
            int changed,
            boolean maybeSent,
            String kind,
            String detail,
            long now)
            throws SQLException {
        if (changed == 0) {
            return new Action(before, Optional.empty(), maybeSent);
        }
        String sent = maybeSent
                ? " (it may have reached central: " + before.attempts() + " attempts so far)"
                : " (never sent to central)";
        Settler.history(
                sql,
                before.id(),
                now,
                kind,
                null,
                null,
                null,
                detail + ", while " + before.state().dbName() + sent);
        CommandRecord after = Settler.records(sql, List.of(before.id())).get(0);
        return new Action(before, Optional.of(after), maybeSent);
    }
}
