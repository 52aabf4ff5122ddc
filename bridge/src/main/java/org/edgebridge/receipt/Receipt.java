package org.edgebridge.receipt;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonRawValue;
import org.jspecify.annotations.Nullable;

/**
 * A business receipt as the device sees it on {@code devices/{clientId}/receipts} (docs/protocol.md §1.5).
 *
 * @param commandId null when no valid commandId could be read from the payload
 * @param result central's result as raw JSON text, or null
 * @param sequence null for commands that were never stored
 * @param topic the command's topic (always set; the contract requires it when commandId is null)
 * @param retryAfterMs set only for {@code retry_later}
 */
@JsonPropertyOrder({
    "commandId",
    "status",
    "final",
    "code",
    "message",
    "result",
    "sequence",
    "payloadSha256",
    "replayed",
    "topic",
    "retryAfterMs"
})
@JsonInclude(JsonInclude.Include.ALWAYS)
public record Receipt(
        @Nullable String commandId,
        String status,
        @JsonProperty("final") boolean isFinal,
        @Nullable String code,
        @Nullable String message,
        @JsonRawValue @Nullable String result,
        @Nullable Long sequence,
        String payloadSha256,
        boolean replayed,
        String topic,
        @Nullable Long retryAfterMs) {}
