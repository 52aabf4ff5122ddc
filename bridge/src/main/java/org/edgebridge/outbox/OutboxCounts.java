package org.edgebridge.outbox;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/** Rows per state and the age of the oldest open command. */
public record OutboxCounts(Map<CommandState, Long> perState, Optional<Instant> oldestPendingReceivedAt) {
    public long count(CommandState state) {
        return perState.getOrDefault(state, 0L);
    }
}
