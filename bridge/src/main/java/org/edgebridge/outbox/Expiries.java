package org.edgebridge.outbox;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.edgebridge.code.ReceiptCode;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Commands that must not run late (docs/protocol.md §1.4): a pending command central never saw whose expiry passed
 * becomes final here, {@code rejected} / {@code expired}, and stays marked until central was told of it
 * ({@link #unreported}, {@link #reported}); until then its device's later commands are not claimed, so that central
 * learns of the gap in the device's sequence before it sees what follows it. A command that was sent before is not
 * expired here: central may have applied it, and refuses a late one by the expiresAt the event carries. Thread-safe.
 */
public final class Expiries {
    /** Rows made final in one write transaction. */
    public static final int ROWS_PER_TRANSACTION = 500;

    /** A command that expired here, as central is told of it (docs/protocol.md §2.1, {@code expired}). */
    public record Expired(long id, String clientId, String commandId, long sequence, Instant expiresAt) {}

    private final Jdbi jdbi;
    private final ParkedDesk.Writes writes;
    private final Clock clock;
    private final AtomicLong openRows;

    Expiries(Jdbi jdbi, ParkedDesk.Writes writes, Clock clock, AtomicLong openRows) {
        this.jdbi = jdbi;
        this.writes = writes;
        this.clock = clock;
        this.openRows = openRows;
    }

    /**
     * Makes final the pending commands central never saw whose expiry has passed, at most
     * {@link #ROWS_PER_TRANSACTION} of them (call again while it returns that many), each with a history line.
     *
     * @return the rows made final, as they are now: their receipts go to the devices
     */
    public List<CommandRecord> expireDue() {
        long now = clock.millis();
        List<Long> due = jdbi.withHandle(handle -> handle.createQuery(OutboxSql.EXPIRING)
                .bind("now", now)
                .bind("limit", ROWS_PER_TRANSACTION)
                .mapTo(Long.class)
                .list());
        if (due.isEmpty()) {
            return List.of();
        }
        List<CommandRecord> expired = writes.write(handle -> expireIn(handle, due, now));
        openRows.addAndGet(-expired.size());
        return expired;
    }

    private static List<CommandRecord> expireIn(Handle handle, List<Long> ids, long now) {
        List<Long> done = new ArrayList<>(ids.size());
        String message = "expired before central applied it: never sent to central";
        for (long id : ids) {
            // state and attempts checked again: a claim may have taken the row since the read above
            if (handle.createUpdate(OutboxSql.EXPIRE)
                            .bind("id", id)
                            .bind("now", now)
                            .bind("message", message)
                            .execute()
                    == 1) {
                Settler.history(handle, id, now, "expired", null, "rejected", ReceiptCode.EXPIRED.wire(), message);
                done.add(id);
            }
        }
        if (done.isEmpty()) {
            return List.of();
        }
        return handle.createQuery(OutboxSql.BY_IDS)
                .bind("ids", OutboxSql.idList(done))
                .mapTo(CommandRecord.class)
                .list();
    }

    /** At most {@code limit} commands that expired here and central has not been told of, oldest first. */
    public List<Expired> unreported(int limit) {
        return jdbi.withHandle(handle -> handle.createQuery(OutboxSql.UNREPORTED_EXPIRIES)
                .bind("limit", limit)
                .map((rs, ctx) -> new Expired(
                        rs.getLong("id"),
                        rs.getString("client_id"),
                        rs.getString("command_id"),
                        rs.getLong("sequence"),
                        Instant.ofEpochMilli(rs.getLong("expires_at"))))
                .list());
    }

    /** Central answered a request that told it of these: their devices' later commands may go. */
    public void reported(List<Expired> told) {
        if (told.isEmpty()) {
            return;
        }
        List<Long> ids = told.stream().map(Expired::id).toList();
        writes.write(handle -> handle.createUpdate(OutboxSql.MARK_EXPIRY_REPORTED)
                .bind("ids", OutboxSql.idList(ids))
                .execute());
    }
}
