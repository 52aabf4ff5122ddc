package org.edgebridge.outbox;

import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.edgebridge.code.ReceiptCode;
import org.jspecify.annotations.Nullable;

/**
 * The parked commands as an admin sees and decides on them (the status page's desk, {@code /api/parked}): grouped by
 * code and device, listed oldest first, and requeued (back to pending) or rejected (final {@code rejected} /
 * {@code rejected_by_admin}) one by one or many at once. Every decision writes one history line per command
 * ({@code requeued} or {@code rejected_by_admin}) with who decided and how. Many decisions run in transactions of at
 * most {@link #ROWS_PER_TRANSACTION} rows, so that a bulk action never holds the writer for long. Thread-safe.
 */
public final class ParkedDesk {
    /** Rows changed in one write transaction of a bulk decision. */
    public static final int ROWS_PER_TRANSACTION = 100;

    /** What an admin decides on a parked command. */
    public enum Decision {
        /** Parked → pending: sent again, with its counters of retry_later answers reset. */
        REQUEUE("requeued", AdminSql.REQUEUE),
        /** Parked → rejected / {@code rejected_by_admin}: final; its receipt goes to the device. */
        REJECT(ReceiptCode.REJECTED_BY_ADMIN.wire(), AdminSql.REJECT);

        private final String historyKind;
        private final String update;

        Decision(String historyKind, String update) {
            this.historyKind = historyKind;
            this.update = update;
        }
    }

    /** Parked commands of one code and device: how many, and when the oldest of them was received. */
    public record Group(String code, String clientId, long commands, Instant oldestReceivedAt) {}

    /** The outbox's write transactions ({@link OutboxWriter#write}). */
    interface Writes {
        <R> R write(OutboxWriter.Work<R> transaction);
    }

    private final OutboxReading reading;
    private final Writes writes;
    private final Clock clock;
    private final AtomicLong openRows;

    ParkedDesk(OutboxReading reading, Writes writes, Clock clock, AtomicLong openRows) {
        this.reading = reading;
        this.writes = writes;
        this.clock = clock;
        this.openRows = openRows;
    }

    /**
     * The code a parked command is grouped and selected by: its own, or {@link ReceiptCode#RETRY_LATER_LIMIT} (a row
     * parked after {@code forwarder.maxAttempts} retry_later answers keeps no code: its code column is for a final
     * receipt).
     */
    public static String codeOf(CommandRecord parked) {
        return parked.code() != null ? parked.code() : ReceiptCode.RETRY_LATER_LIMIT.wire();
    }

    /** At most {@code limit} groups, by code then device. */
    public List<Group> groups(int limit) {
        return reading.read(sql -> sql.get(AdminSql.PARKED_GROUPS)
                .set("limit", limit)
                .list(rs -> new Group(
                        rs.getString("code"),
                        rs.getString("client_id"),
                        rs.getLong("commands"),
                        Instant.ofEpochMilli(rs.getLong("oldest_received_at")))));
    }

    /**
     * Parked commands, oldest first.
     *
     * @param code a desk code ({@link #codeOf}), or null for any
     * @param clientId a device, or null for any
     */
    public List<CommandRecord> list(@Nullable String code, @Nullable String clientId, int limit) {
        return reading.read(sql -> {
            var q = sql.get(AdminSql.parked(code != null, clientId != null)).set("limit", limit);
            if (code != null) {
                q.set("code", code);
            }
            if (clientId != null) {
                q.set("c", clientId);
            }
            return q.list(OutboxRows::commandRecord);
        });
    }

    /** The device's bytes of a stored command, as it sent them. */
    public Optional<byte[]> payload(String clientId, String commandId) {
        return reading.read(sql -> sql.get(AdminSql.PAYLOAD)
                .set("c", clientId)
                .set("id", commandId)
                .first(rs -> rs.getBytes("payload")));
    }

    /**
     * Applies one decision to the rows of these ids that are still parked, in transactions of at most
     * {@link #ROWS_PER_TRANSACTION} rows, with a history line each saying {@code detail}.
     *
     * @return the rows changed, as they are now, in the order of {@code ids}
     */
    public List<CommandRecord> decide(List<Long> ids, Decision decision, String detail) {
        List<CommandRecord> changed = new ArrayList<>();
        for (int from = 0; from < ids.size(); from += ROWS_PER_TRANSACTION) {
            List<Long> chunk = ids.subList(from, Math.min(ids.size(), from + ROWS_PER_TRANSACTION));
            long now = clock.millis();
            List<CommandRecord> done = writes.write(sql -> decideIn(sql, chunk, decision, detail, now));
            if (decision == Decision.REJECT) {
                openRows.addAndGet(-done.size());
            }
            changed.addAll(done);
        }
        return changed;
    }

    private static List<CommandRecord> decideIn(
            NamedStatements sql, List<Long> ids, Decision decision, String detail, long now) throws SQLException {
        List<CommandRecord> done = new ArrayList<>();
        for (long id : ids) {
            NamedStatements.Named update = sql.get(decision.update).set("id", id);
            if (decision == Decision.REJECT) {
                update.set("now", now); // the final's time; a requeue has none
            }
            if (update.update() == 1) {
                Settler.history(sql, id, now, decision.historyKind, null, null, null, detail);
                done.addAll(Settler.records(sql, List.of(id)));
            }
        }
        return done;
    }
}
