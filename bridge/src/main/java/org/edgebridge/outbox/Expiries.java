package org.edgebridge.outbox;

import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.edgebridge.code.ReceiptCode;

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

    private final OutboxReading reading;
    private final ParkedDesk.Writes writes;
    private final Clock clock;
    private final AtomicLong openRows;

    Expiries(OutboxReading reading, ParkedDesk.Writes writes, Clock clock, AtomicLong openRows) {
        this.reading = reading;
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
        List<Long> due = reading.read(sql -> sql.get(ForwarderSql.EXPIRING)
                .set("now", now)
                .set("limit", ROWS_PER_TRANSACTION)
                .list(rs -> rs.getLong("id")));
        if (due.isEmpty()) {
            return List.of();
        }
        List<CommandRecord> expired = writes.write(sql -> expireIn(sql, due, now));
        openRows.addAndGet(-expired.size());
        return expired;
    }

    private static List<CommandRecord> expireIn(NamedStatements sql, List<Long> ids, long now) throws SQLException {
        List<Long> done = new ArrayList<>(ids.size());
        String message = "expired before central applied it: never sent to central";
        for (long id : ids) {
            // state and attempts checked again: a claim may have taken the row since the read above
            if (sql.get(ForwarderSql.EXPIRE)
                            .set("id", id)
                            .set("now", now)
                            .set("message", message)
                            .update()
                    == 1) {
                Settler.history(sql, id, now, "expired", null, "rejected", ReceiptCode.EXPIRED.wire(), message);
                done.add(id);
            }
        }
        return Settler.records(sql, done);
    }

    /** At most {@code limit} commands that expired here and central has not been told of, oldest first. */
    public List<Expired> unreported(int limit) {
        return reading.read(sql -> sql.get(ForwarderSql.UNREPORTED_EXPIRIES)
                .set("limit", limit)
                .list(rs -> new Expired(
                        rs.getLong("id"),
                        rs.getString("client_id"),
                        rs.getString("command_id"),
                        rs.getLong("sequence"),
                        Instant.ofEpochMilli(rs.getLong("expires_at")))));
    }

    /** Central answered a request that told it of these: their devices' later commands may go. */
    public void reported(List<Expired> told) {
        if (told.isEmpty()) {
            return;
        }
        List<Long> ids = told.stream().map(Expired::id).toList();
        writes.write(sql -> sql.get(ForwarderSql.MARK_EXPIRY_REPORTED)
                .set("ids", OutboxSql.idList(ids))
                .update());
    }
}
