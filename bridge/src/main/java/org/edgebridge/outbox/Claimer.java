package org.edgebridge.outbox;

import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Claims the next batch inside one transaction (see {@link Outbox#claim}), on the write connection's kept statements
 * ({@link NamedStatements}), the SQL in {@link ForwarderSql}.
 */
final class Claimer {
    private Claimer() {}

    /** The lowest open row of one device ({@link ForwarderSql#CLAIM_HEADS}). */
    record Head(long id, String clientId, long sequence) {}

    /** One open row of a device's run, with its payload's size but not its bytes ({@link ForwarderSql#CLAIM_RUN}). */
    record Candidate(
            long id,
            String commandId,
            long sequence,
            String topic,
            String type,
            int payloadBytes,
            String payloadSha256,
            Instant receivedAt,
            CommandState state,
            Instant notBefore,
            int attempts,
            int centralFailures,
            Optional<Instant> expiresAt,
            int unsentAttempts) {
        /**
         * Expired before central saw it: not sent, the expiry sweep makes it final ({@link ForwarderSql#EXPIRING}). One
         * that was sent before is sent again (central may have applied it; it refuses a late one by its expiresAt).
         */
        boolean expiredUnsent(long now) {
            return attempts == unsentAttempts
                    && expiresAt.isPresent()
                    && expiresAt.get().toEpochMilli() <= now;
        }
    }

    private record Chosen(Candidate c, String clientId) {}

    /**
     * @param sql the write connection's kept statements, inside its write transaction
     * @param next the request's budgets: {@code maxBytes} of the events' serialized bytes, each measured by {@code
     *     size}; the first event is taken whatever its size (it then goes alone)
     */
    static List<ClaimedEvent> claim(NamedStatements sql, long now, ForwarderOutbox.NextClaim next) throws SQLException {
        return claim(sql, now, next.maxEvents(), next.maxBytes(), next.size(), next.maxRowId(), next.batchId());
    }

    private static List<ClaimedEvent> claim(
            NamedStatements sql, long now, int maxEvents, int maxBytes, WireSize size, long maxRowId, String batchId)
            throws SQLException {
        List<Head> heads = sql.get(ForwarderSql.CLAIM_HEADS)
                .set("now", now)
                .set("maxId", maxRowId)
                .set("limit", maxEvents)
                .list(rs -> new Head(rs.getLong("id"), rs.getString("client_id"), rs.getLong("sequence")));
        Taking taking = new Taking(sql, now, maxEvents, maxBytes, size, maxRowId);
        // a fair share of the request for each device that has a due head first, then what is left to those with more:
        // one device with a backlog of 100,000 must not fill every request while the others' commands wait behind it
        int share = Math.max(1, maxEvents / Math.max(1, heads.size()));
        List<Head> more = new ArrayList<>();
        for (Head head : heads) {
            if (taking.full()) {
                break;
            }
            if (taking.take(head, head.sequence(), share)) {
                more.add(head);
            }
        }
        for (Head head : more) {
            if (taking.full()) {
                break;
            }
            taking.take(head, taking.lastSequence(head) + 1, maxEvents);
        }
        List<Chosen> chosen = taking.chosenByDevice(heads);
        List<ClaimedEvent> claimed = withPayloads(sql, chosen);
        if (!claimed.isEmpty()) {
            NamedStatements.Named mark = sql.get(ForwarderSql.CLAIM_MARK);
            // a first attempt has no attempt line to fold into (attempts only grow, and only a claim writes that
            // line): one plain insert instead of the fold's update and the insert-if-new, for nearly every event
            NamedStatements.Named first = sql.get(OutboxSql.HISTORY);
            NamedStatements.Named fold = sql.get(OutboxSql.HISTORY_FOLD);
            NamedStatements.Named insert = sql.get(OutboxSql.HISTORY_IF_NEW);
            boolean anyFirst = false;
            boolean anyAgain = false;
            for (ClaimedEvent e : claimed) {
                mark.set("now", now).set("b", batchId).set("id", e.id()).addBatch();
                boolean isFirst = e.attempt() == 1;
                anyFirst |= isFirst;
                anyAgain |= !isFirst;
                for (NamedStatements.Named history : isFirst ? List.of(first) : List.of(fold, insert)) {
                    history.set("id", e.id())
                            .set("at", now)
                            .set("kind", "attempt")
                            .set("b", batchId)
                            .set("status", null)
                            .set("code", null)
                            .set("detail", "attempt " + e.attempt());
                    if (!isFirst) {
                        history.set("http", null).set("took", null); // an attempt's outcome is on the line that ends it
                    }
                    history.addBatch();
                }
            }
            mark.runBatch();
            if (anyFirst) {
                first.runBatch();
            }
            if (anyAgain) {
                fold.runBatch();
                insert.runBatch();
            }
        }
        return claimed;
    }

    /** The events a claim takes, device by device, within the request's event and byte budgets. */
    private static final class Taking {
        private final NamedStatements sql;
        private final long now;
        private final int maxEvents;
        private final int maxBytes;
        private final WireSize size;
        private final long maxRowId;
        private final Map<String, List<Chosen>> byDevice = new HashMap<>();
        private int count;
        private long bytes;

        Taking(NamedStatements sql, long now, int maxEvents, int maxBytes, WireSize size, long maxRowId) {
            this.sql = sql;
            this.now = now;
            this.maxEvents = maxEvents;
            this.maxBytes = maxBytes;
            this.size = size;
            this.maxRowId = maxRowId;
        }

        boolean full() {
            return count >= maxEvents || bytes >= maxBytes;
        }

        /**
         * Takes up to {@code limit} of the device's due rows in sequence order from {@code fromSequence}, stopping at
         * the first that is not due or does not fit. @return true when it stopped at the limit: the device may have
         * more
         */
        boolean take(Head head, long fromSequence, int limit) throws SQLException {
            int wanted = Math.min(limit, maxEvents - count);
            if (wanted <= 0) {
                return false;
            }
            List<Chosen> mine = byDevice.computeIfAbsent(head.clientId(), k -> new ArrayList<>());
            int taken = 0;
            for (Candidate c : run(sql, head.clientId(), fromSequence, wanted)) {
                boolean due = c.state() == CommandState.PENDING
                        && c.notBefore().toEpochMilli() <= now
                        && c.id() <= maxRowId
                        && !c.expiredUnsent(now);
                long eventBytes = size.bytes(head.clientId(), c.commandId(), c.type(), c.topic(), c.payloadBytes());
                if (!due || (count > 0 && bytes + eventBytes > maxBytes)) {
                    return false;
                }
                bytes += eventBytes;
                count++;
                taken++;
                mine.add(new Chosen(c, head.clientId()));
            }
            return taken == wanted;
        }

        long lastSequence(Head head) {
            // only after a take that returned true, which chose at least one of the device's events
            List<Chosen> mine = Objects.requireNonNull(byDevice.get(head.clientId()));
            return mine.get(mine.size() - 1).c().sequence();
        }

        /** Each device's events together, in sequence order, the devices in the order of their heads. */
        List<Chosen> chosenByDevice(List<Head> heads) {
            List<Chosen> out = new ArrayList<>(count);
            for (Head head : heads) {
                out.addAll(byDevice.getOrDefault(head.clientId(), List.of()));
            }
            return out;
        }
    }

    /** One device's open rows from {@code fromSequence} on ({@link ForwarderSql#CLAIM_RUN}). */
    private static List<Candidate> run(NamedStatements sql, String clientId, long fromSequence, int limit)
            throws SQLException {
        return sql.get(ForwarderSql.CLAIM_RUN)
                .set("c", clientId)
                .set("head", fromSequence)
                .set("limit", limit)
                .list(rs -> new Candidate(
                        rs.getLong("id"),
                        rs.getString("command_id"),
                        rs.getLong("sequence"),
                        rs.getString("topic"),
                        rs.getString("type"),
                        rs.getInt("payload_bytes"),
                        rs.getString("payload_sha256"),
                        Instant.ofEpochMilli(rs.getLong("received_at")),
                        CommandState.fromDb(rs.getString("state")),
                        Instant.ofEpochMilli(rs.getLong("not_before")),
                        rs.getInt("attempts"),
                        rs.getInt("central_failures"),
                        OutboxRows.optionalInstant(rs, "expires_at"),
                        rs.getInt("unsent_attempts")));
    }

    /** Reads the payloads of the chosen rows only: a claim holds at most about maxBytes of payload in memory. */
    private static List<ClaimedEvent> withPayloads(NamedStatements sql, List<Chosen> chosen) throws SQLException {
        if (chosen.isEmpty()) {
            return List.of();
        }
        Map<Long, byte[]> payloads = new HashMap<>();
        for (Map.Entry<Long, byte[]> row : sql.get(ForwarderSql.CLAIM_PAYLOADS)
                .set(
                        "ids",
                        OutboxSql.idList(chosen.stream().map(x -> x.c().id()).toList()))
                .list(rs -> Map.entry(rs.getLong("id"), rs.getBytes("payload")))) {
            payloads.putIfAbsent(row.getKey(), row.getValue());
        }
        List<ClaimedEvent> claimed = new ArrayList<>(chosen.size());
        for (Chosen x : chosen) {
            Candidate c = x.c();
            // payload is NOT NULL, and each chosen row was just read on this connection, in this transaction
            claimed.add(new ClaimedEvent(
                    c.id(),
                    x.clientId(),
                    c.commandId(),
                    c.sequence(),
                    c.topic(),
                    c.type(),
                    Objects.requireNonNull(payloads.get(c.id())),
                    c.payloadSha256(),
                    c.receivedAt(),
                    c.attempts() + 1,
                    c.centralFailures(),
                    c.expiresAt()));
        }
        return claimed;
    }
}
