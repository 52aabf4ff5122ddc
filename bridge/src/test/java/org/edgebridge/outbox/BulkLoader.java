package org.edgebridge.outbox;

import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.PreparedBatch;

/**
 * Writes many new commands at once in one state, as a long-running site holds them (a backlog after an outage, final
 * rows due for retention): a tool of the tests and the benchmark, not of the product, which stores what a device
 * sends through the intake. Writes straight into an outbox file that no bridge has open (its schema migrated first),
 * in prepared batches inside one transaction; each device's sequence goes on from its last. There is no dedup check:
 * a known (clientId, commandId) fails the whole load. Final rows count as published.
 */
public final class BulkLoader {
    private static final int BATCH = 10_000;
    private static final String DEVICE_SEQUENCES = "SELECT client_id, last_sequence FROM devices";
    private static final String BULK_DEVICE = """
            INSERT INTO devices (client_id, last_sequence, first_seen_at, last_seen_at) VALUES (:c, :seq, :t, :t)
            ON CONFLICT (client_id) DO UPDATE SET last_sequence = :seq, last_seen_at = MAX(last_seen_at, :t)""";
    private static final String BULK_INSERT = """
            INSERT INTO commands (client_id, command_id, sequence, topic, type, payload, payload_sha256, received_at, state,
                                  final_at, receipt_published)
            VALUES (:clientId, :commandId, :sequence, :topic, :type, :payload, :sha, :receivedAt, :state,
                    :finalAt, :published)""";

    /** Each device's open commands and their bytes, counted again (what V7__device_share.sql's triggers keep). */
    private static final String DEVICE_SHARES = """
            UPDATE devices SET
                open_count = (SELECT COUNT(*) FROM commands c
                              WHERE c.client_id = devices.client_id AND c.state IN ('pending', 'inflight', 'parked')),
                open_bytes = (SELECT COALESCE(SUM(length(c.payload)), 0) FROM commands c
                              WHERE c.client_id = devices.client_id AND c.state IN ('pending', 'inflight', 'parked'))""";

    private BulkLoader() {}

    /**
     * @param finalAt when final rows became final; not used for open states
     * @return how many rows were written
     */
    public static long load(Path file, Stream<NewCommand> commands, CommandState state, Instant finalAt) {
        return OutboxDatabase.open(file).inTransaction(handle -> load(handle, commands, state, finalAt));
    }

    private static long load(Handle handle, Stream<NewCommand> commands, CommandState state, Instant finalAt) {
        Long finalMillis = state.isFinal() ? finalAt.toEpochMilli() : null;
        Map<String, Long> sequences = handle.createQuery(DEVICE_SEQUENCES)
                .map((rs, ctx) -> Map.entry(rs.getString("client_id"), rs.getLong("last_sequence")))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        Map<String, Long> lastSeen = new HashMap<>();
        long n = 0;
        PreparedBatch batch = handle.prepareBatch(BULK_INSERT);
        for (Iterator<NewCommand> it = commands.iterator(); it.hasNext(); ) {
            NewCommand c = it.next();
            long receivedAt = c.receivedAt().toEpochMilli();
            lastSeen.merge(c.clientId(), receivedAt, Math::max);
            batch.bind("clientId", c.clientId())
                    .bind("commandId", c.commandId())
                    .bind("sequence", sequences.merge(c.clientId(), 1L, Long::sum))
                    .bind("topic", c.topic())
                    .bind("type", c.type())
                    .bind("payload", c.payload())
                    .bind("sha", c.payloadSha256())
                    .bind("receivedAt", receivedAt)
                    .bind("state", state.dbName())
                    .bind("finalAt", finalMillis)
                    .bind("published", state.isFinal() ? 1 : 0)
                    .add();
            if (++n % BATCH == 0) {
                batch.execute();
                batch = handle.prepareBatch(BULK_INSERT);
            }
        }
        if (n % BATCH != 0) {
            batch.execute();
        }
        PreparedBatch devices = handle.prepareBatch(BULK_DEVICE);
        lastSeen.forEach((c, t) ->
                devices.bind("c", c).bind("seq", sequences.get(c)).bind("t", t).add());
        if (!lastSeen.isEmpty()) {
            devices.execute();
            handle.execute(
                    DEVICE_SHARES); // rows of a device new here came before its devices row: no trigger counted them
        }
        return n;
    }
}
