package org.edgebridge.admin;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonRawValue;
import java.time.Instant;
import java.util.List;
import org.edgebridge.outbox.CommandRecord;
import org.edgebridge.outbox.HistoryEntry;
import org.jspecify.annotations.Nullable;

/** One outbox row as the admin API shows it; {@code history} and {@code timeline} only on the single-row endpoint. */
@JsonInclude(JsonInclude.Include.NON_NULL)
record CommandView(
        String deviceId,
        String commandId,
        long sequence,
        String type,
        String topic,
        String state,
        int attempts,
        int retryLaters,
        Instant receivedAt,
        @Nullable Instant notBefore,
        @Nullable String lastError,
        @Nullable String code,
        @Nullable String message,
        @JsonRawValue @Nullable String result,
        @Nullable Instant finalAt,
        String payloadSha256,
        @Nullable List<HistoryEntry> history,
        @Nullable List<TimelineEntry> timeline) {

    static CommandView of(CommandRecord r, @Nullable List<HistoryEntry> history) {
        return of(r, history, null);
    }

    /** With its {@code timeline} (docs/desk.md, "A command's timeline"): the single-row endpoint. */
    static CommandView of(
            CommandRecord r, @Nullable List<HistoryEntry> history, @Nullable List<TimelineEntry> timeline) {
        return new CommandView(
                r.clientId(),
                r.commandId(),
                r.sequence(),
                r.type(),
                r.topic(),
                r.state().dbName(),
                r.attempts(),
                r.retryLaters(),
                r.receivedAt(),
                r.notBefore().toEpochMilli() == 0 ? null : r.notBefore(),
                r.lastError(),
                r.code(),
                r.message(),
                r.resultJson(),
                r.finalAt().orElse(null),
                r.payloadSha256(),
                history,
                timeline);
    }
}
