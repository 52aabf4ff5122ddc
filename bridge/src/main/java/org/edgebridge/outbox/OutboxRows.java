package org.edgebridge.outbox;

import java.time.Instant;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.reflect.ConstructorMapper;

/**
 * How the outbox's rows become records: each record is filled by Jdbi's {@link ConstructorMapper}, which matches
 * the selected column names to the record's component names ({@code client_id} → {@code clientId}), never by
 * position. Times are stored as epoch milliseconds and states by their {@link CommandState#dbName()}; the two
 * column mappers here read them back (a NULL time is null, or an empty {@code Optional<Instant>}).
 */
final class OutboxRows {
    private OutboxRows() {}

    /** Records selected by a statement in {@link OutboxSql}. */
    record StateCount(CommandState state, long rowsInState) {}

    record LastSequence(String clientId, long lastSequence) {}

    static Jdbi configure(Jdbi jdbi) {
        jdbi.registerColumnMapper(Instant.class, (rs, column, ctx) -> {
            long millis = rs.getLong(column);
            return rs.wasNull() ? null : Instant.ofEpochMilli(millis);
        });
        jdbi.registerColumnMapper(CommandState.class, (rs, column, ctx) -> {
            String name = rs.getString(column);
            return name == null ? null : CommandState.fromDb(name);
        });
        for (Class<?> type : new Class<?>[] {CommandRecord.class, HistoryEntry.class, DeviceRow.class, StateCount.class, LastSequence.class,
                Claimer.Head.class, Claimer.Candidate.class, Claimer.Payload.class}) {
            jdbi.registerRowMapper(ConstructorMapper.factory(type));
        }
        return jdbi;
    }
}
