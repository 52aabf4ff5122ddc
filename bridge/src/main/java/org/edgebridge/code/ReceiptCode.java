package org.edgebridge.code;

import java.util.Arrays;
import java.util.List;

/**
 * Every code the bridge itself puts in a receipt or on a parked command, with its wire string (docs/protocol.md: the
 * tables of §1.5 and §2.4; {@code ReceiptCodeTest} keeps them equal). Central's own codes pass through as strings.
 */
public enum ReceiptCode {
    // rejected by the bridge (final; the command never reaches central): docs/protocol.md §1.5
    INVALID_JSON("invalid_json", Kind.REJECTED),
    MISSING_COMMAND_ID("missing_command_id", Kind.REJECTED),
    INVALID_COMMAND_ID("invalid_command_id", Kind.REJECTED),
    PAYLOAD_TOO_LARGE("payload_too_large", Kind.REJECTED),
    JSON_LIMIT_EXCEEDED("json_limit_exceeded", Kind.REJECTED),
    INVALID_TYPE("invalid_type", Kind.REJECTED),
    COMMAND_ID_REUSED("command_id_reused", Kind.REJECTED),
    INVALID_EXPIRES_AT("invalid_expires_at", Kind.REJECTED),
    UNSTORABLE("unstorable", Kind.REJECTED),
    /** On arrival (the intake) or while the bridge held it unsent (the forwarder's expiry reports). */
    EXPIRED("expired", Kind.REJECTED),
    /** Not the intake's: an operator rejected a parked or pending command. */
    REJECTED_BY_ADMIN("rejected_by_admin", Kind.REJECTED_BY_OPERATOR),

    // retry_later: the bridge did not take custody (docs/protocol.md §1.5)
    OUTBOX_FULL("outbox_full", Kind.RETRY_LATER),
    DEVICE_OUTBOX_FULL("device_outbox_full", Kind.RETRY_LATER),
    INTAKE_BUSY("intake_busy", Kind.RETRY_LATER),
    OUTBOX_UNAVAILABLE("outbox_unavailable", Kind.RETRY_LATER),
    SHUTTING_DOWN("shutting_down", Kind.RETRY_LATER),

    // central failed on the event alone forwarder.maxServerErrors times (docs/protocol.md §2.4)
    INGEST_SERVER_ERROR("ingest_server_error", Kind.PARKED),
    INGEST_UNAVAILABLE("ingest_unavailable", Kind.PARKED),
    INGEST_TIMEOUT("ingest_timeout", Kind.PARKED),
    INGEST_CONNECTION_DROPPED("ingest_connection_dropped", Kind.PARKED),
    INGEST_FORBIDDEN("ingest_forbidden", Kind.PARKED),
    INGEST_REFUSED("ingest_refused", Kind.PARKED),
    CENTRAL_NO_RECEIPT("central_no_receipt", Kind.PARKED),
    INGEST_BAD_REQUEST("ingest_bad_request", Kind.REJECTED_AFTER_FAILURES),
    INGEST_PAYLOAD_TOO_LARGE("ingest_payload_too_large", Kind.REJECTED_AFTER_FAILURES),

    // parked by other means (docs/protocol.md §2.4, docs/desk.md)
    /** An operator set a pending command aside. */
    PARKED_BY_ADMIN("parked_by_admin", Kind.PARKED),
    /** Not stored on the row (its code is null): the desk's name for a command parked after forwarder.maxAttempts. */
    RETRY_LATER_LIMIT("retry_later_limit", Kind.PARKED);

    /** What a code says about the command. */
    public enum Kind {
        /** Final {@code rejected}, given by the bridge's intake or its expiry check. */
        REJECTED,
        /** Final {@code rejected}, by an operator. */
        REJECTED_BY_OPERATOR,
        /** Final {@code rejected} after central failed on the event alone again and again (400, 413, 422). */
        REJECTED_AFTER_FAILURES,
        /** {@code retry_later}: not stored; the device sends it again. */
        RETRY_LATER,
        /** Kept in the outbox, parked: only an operator requeues or rejects it. */
        PARKED
    }

    private final String wire;
    private final Kind kind;

    ReceiptCode(String wire, Kind kind) {
        this.wire = wire;
        this.kind = kind;
    }

    /** The code as devices, central and operators see it. */
    public String wire() {
        return wire;
    }

    public Kind kind() {
        return kind;
    }

    /** The codes of one kind, in declaration order. */
    public static List<ReceiptCode> ofKind(Kind kind) {
        return Arrays.stream(values()).filter(c -> c.kind == kind).toList();
    }

    @Override
    public String toString() {
        return wire;
    }
}
