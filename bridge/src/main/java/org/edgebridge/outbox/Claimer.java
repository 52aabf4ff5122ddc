package org.edgebridge.outbox;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;

/** Claims the next batch inside one transaction (see {@link Outbox#claim}). */
final class Claimer {
    /** Rough JSON overhead of one event around its payload, for the request byte budget. */
    static final int EVENT_OVERHEAD_BYTES = 400;

    private Claimer() {}

    /** The lowest open row of one device ({@link OutboxSql#CLAIM_HEADS}). */
    record Head(long id, String clientId, long sequence) {}

    /** One open row of a device's run, with its payload's size but not its bytes ({@link OutboxSql#CLAIM_RUN}). */
    record Candidate(long id, String commandId, long sequence, String topic, String type, int payloadBytes,
            String payloadSha256, Instant receivedAt, CommandState state, Instant notBefore, int attempts) {}

    /** The bytes of one chosen row ({@link OutboxSql#CLAIM_PAYLOADS}). */
    record Payload(long id, byte[] payload) {}

    private record Chosen(Candidate c, String clientId) {}

    static List<ClaimedEvent> claim(Handle handle, long now, int maxEvents, int maxBytes, long maxRowId, String batchId) {
        List<Head> heads = handle.createQuery(OutboxSql.CLAIM_HEADS)
                .bind("now", now).bind("maxId", maxRowId).bind("limit", maxEvents)
                .mapTo(Head.class).list();
        List<Chosen> chosen = new ArrayList<>();
        long bytes = 0;
        for (Head head : heads) {
            List<Candidate> run = handle.createQuery(OutboxSql.CLAIM_RUN)
                    .bind("c", head.clientId()).bind("head", head.sequence()).bind("limit", maxEvents - chosen.size())
                    .mapTo(Candidate.class).list();
            for (Candidate c : run) {
                boolean due = c.state() == CommandState.PENDING && c.notBefore().toEpochMilli() <= now && c.id() <= maxRowId;
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
            var mark = handle.prepareBatch(OutboxSql.CLAIM_MARK);
            var history = handle.prepareBatch(OutboxSql.HISTORY);
            for (ClaimedEvent e : claimed) {
                mark.bind("now", now).bind("b", batchId).bind("id", e.id()).add();
                history.bind("id", e.id()).bind("at", now).bind("kind", "attempt").bind("b", batchId)
                        .bind("status", (String) null).bind("code", (String) null)
                        .bind("detail", "attempt " + e.attempt()).add();
            }
            mark.execute();
            history.execute();
        }
        return claimed;
    }

    /** Reads the payloads of the chosen rows only: a claim holds at most about maxBytes of payload in memory. */
    private static List<ClaimedEvent> withPayloads(Handle handle, List<Chosen> chosen) {
        if (chosen.isEmpty()) {
            return List.of();
        }
        Map<Long, byte[]> payloads = handle.createQuery(OutboxSql.CLAIM_PAYLOADS)
                .bind("ids", OutboxSql.idList(chosen.stream().map(x -> x.c().id()).toList()))
                .mapTo(Payload.class)
                .collect(Collectors.toMap(Payload::id, Payload::payload, (a, b) -> a));
        List<ClaimedEvent> claimed = new ArrayList<>(chosen.size());
        for (Chosen x : chosen) {
            Candidate c = x.c();
            claimed.add(new ClaimedEvent(c.id(), x.clientId(), c.commandId(), c.sequence(), c.topic(), c.type(),
                    payloads.get(c.id()), c.payloadSha256(), c.receivedAt(), c.attempts() + 1));
        }
        return claimed;
    }
}
