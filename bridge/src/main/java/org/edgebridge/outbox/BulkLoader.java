package org.edgebridge.outbox;

import java.time.Instant;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.PreparedBatch;

/** Writes many new rows in prepared batches inside one transaction (see {@link Outbox#bulkLoad}). */
final class BulkLoader {
    private static final int BATCH = 10_000;

    private BulkLoader() {}

    /** @return how many rows were written */
    static long load(Handle handle, Stream<NewCommand> commands, CommandState state, Instant finalAt) {
        Long finalMillis = state.isFinal() ? finalAt.toEpochMilli() : null;
        Map<String, Long> sequences = handle.createQuery(OutboxSql.DEVICE_SEQUENCES).mapTo(OutboxRows.LastSequence.class)
                .collect(Collectors.toMap(OutboxRows.LastSequence::clientId, OutboxRows.LastSequence::lastSequence));
        Map<String, Long> lastSeen = new HashMap<>();
        long n = 0;
        PreparedBatch batch = handle.prepareBatch(OutboxSql.BULK_INSERT);
        for (Iterator<NewCommand> it = commands.iterator(); it.hasNext(); ) {
            NewCommand c = it.next();
            long receivedAt = c.receivedAt().toEpochMilli();
            lastSeen.merge(c.clientId(), receivedAt, Math::max);
            batch.bind("clientId", c.clientId()).bind("commandId", c.commandId())
                    .bind("sequence", sequences.merge(c.clientId(), 1L, Long::sum)).bind("topic", c.topic())
                    .bind("type", c.type()).bind("payload", c.payload()).bind("sha", c.payloadSha256())
                    .bind("receivedAt", receivedAt).bind("state", state.dbName()).bind("finalAt", finalMillis)
                    .bind("published", state.isFinal() ? 1 : 0).add();
            if (++n % BATCH == 0) {
                batch.execute();
                batch = handle.prepareBatch(OutboxSql.BULK_INSERT);
            }
        }
        if (n % BATCH != 0) {
            batch.execute();
        }
        PreparedBatch devices = handle.prepareBatch(OutboxSql.BULK_DEVICE);
        lastSeen.forEach((c, t) -> devices.bind("c", c).bind("seq", sequences.get(c)).bind("t", t).add());
        if (!lastSeen.isEmpty()) {
            devices.execute();
        }
        return n;
    }
}
