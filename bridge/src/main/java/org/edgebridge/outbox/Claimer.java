package org.edgebridge.outbox;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Handle;

/** Claims the next batch inside one transaction (see {@link Outbox#claim}). */
final class Claimer {
    /** Rough JSON overhead of one event around its payload, for the request byte budget. */
    static final int EVENT_OVERHEAD_BYTES = 400;

    private Claimer() {}

    private record Head(long id, String clientId, long sequence) {}

    private record Candidate(long id, String commandId, long sequence, String topic, String type, int payloadBytes,
            String sha, long receivedAt, String state, long notBefore, int attempts) {}

    private record Chosen(Candidate c, String clientId) {}

    /** Reads the payloads of the chosen rows only: a claim holds at most about maxBytes of payload in memory. */
    private static List<ClaimedEvent> withPayloads(Handle handle, List<Chosen> chosen) {
        if (chosen.isEmpty()) {
            return List.of();
        }
        Map<Long, byte[]> payloads = new HashMap<>();
        handle.createQuery(OutboxSql.CLAIM_PAYLOADS).bindList("ids", chosen.stream().map(x -> x.c().id()).toList())
                .map((rs, ctx) -> Map.entry(rs.getLong(1), rs.getBytes(2)))
                .forEach(e -> payloads.put(e.getKey(), e.getValue()));
        List<ClaimedEvent> claimed = new ArrayList<>(chosen.size());
        for (Chosen x : chosen) {
            Candidate c = x.c();
            claimed.add(new ClaimedEvent(c.id(), x.clientId(), c.commandId(), c.sequence(), c.topic(), c.type(),
                    payloads.get(c.id()), c.sha(), Instant.ofEpochMilli(c.receivedAt()), c.attempts() + 1));
        }
        return claimed;
    }

    static List<ClaimedEvent> claim(Handle handle, long now, int maxEvents, int maxBytes, long maxRowId, String batchId) {
        List<Head> heads = handle.createQuery(OutboxSql.CLAIM_HEADS)
                .bind("now", now).bind("maxId", maxRowId).bind("limit", maxEvents)
                .map((rs, ctx) -> new Head(rs.getLong(1), rs.getString(2), rs.getLong(3)))
                .list();
        List<Chosen> chosen = new ArrayList<>();
        long bytes = 0;
        for (Head head : heads) {
            List<Candidate> run = handle.createQuery(OutboxSql.CLAIM_RUN)
                    .bind("c", head.clientId()).bind("head", head.sequence()).bind("limit", maxEvents - chosen.size())
                    .map((rs, ctx) -> new Candidate(rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getString(4),
                            rs.getString(5), rs.getInt(6), rs.getString(7), rs.getLong(8), rs.getString(9),
                            rs.getLong(10), rs.getInt(11)))
                    .list();
            for (Candidate c : run) {
                boolean due = c.state().equals("pending") && c.notBefore() <= now && c.id() <= maxRowId;
                long size = (long) c.payloadBytes() + EVENT_OVERHEAD_BYTES;
                if (!due || (!chosen.isEmpty() && bytes + size > maxBytes) || chosen.size() >= maxEvents) {
                    break;
                }
                bytes += size;
                chosen.add(new Chosen(c, head.clientId()));
            }
            if (chosen.size() >= maxEvents || bytes >= maxBytes) {
                break;
            }
        }
        List<ClaimedEvent> claimed = withPayloads(handle, chosen);
        if (!claimed.isEmpty()) {
            var update = handle.prepareBatch("""
                    UPDATE commands SET state = 'inflight', claimed_at = :now, attempts = attempts + 1, batch_id = :b
                    WHERE id = :id""");
            var history = handle.prepareBatch("""
                    INSERT INTO command_history (command, at, kind, batch_id, detail)
                    VALUES (:id, :now, 'attempt', :b, :detail)""");
            for (ClaimedEvent e : claimed) {
                update.bind("now", now).bind("b", batchId).bind("id", e.id()).add();
                history.bind("id", e.id()).bind("now", now).bind("b", batchId).bind("detail", "attempt " + e.attempt()).add();
            }
            update.execute();
            history.execute();
        }
        return claimed;
    }
}
