package org.edgebridge.code;

/**
 * Every alarm the status page ({@code /api/status}, {@code alarms}) and {@code /metrics}
 * ({@code edgebridge_alarm_active}) can show, with its wire string. Operators and their monitoring match on these.
 */
public enum AlarmCode {
    WORKER_DIED("worker_died"),
    TAKEOVER_STORM("takeover_storm"),
    OUTBOX_UNWRITABLE("outbox_unwritable"),
    LOW_DISK("low_disk"),
    OUTBOX_FULL("outbox_full"),
    DEVICE_OUTBOX_FULL("device_outbox_full"),
    BROKER_DOWN("broker_down"),
    BROKER_RESTARTED("broker_restarted"),
    /** The only alarm an operator acknowledges ({@code POST /api/alarms/broker_store_reset/ack}). */
    BROKER_STORE_RESET("broker_store_reset"),
    CENTRAL_REDIRECT("central_redirect"),
    CENTRAL_REFUSED("central_refused"),
    CENTRAL_UNREACHABLE("central_unreachable"),
    CENTRAL_RECEIPT_VIOLATIONS("central_receipt_violations"),
    CENTRAL_MISSING_RECEIPTS("central_missing_receipts"),
    CENTRAL_FAILING_AT_RANDOM("central_failing_at_random"),
    FORWARDER_PAUSED("forwarder_paused"),
    PARKED_COMMANDS("parked_commands"),
    INGEST_CERTIFICATE_EXPIRED("ingest_certificate_expired"),
    INGEST_CERTIFICATE_EXPIRING("ingest_certificate_expiring"),
    INGEST_CERTIFICATE_UNUSABLE("ingest_certificate_unusable"),
    INGEST_TOKEN_ENDPOINT_FAILING("ingest_token_endpoint_failing"),
    /** A notice ({@code storage.notice}), not an alarm: shown apart, it never makes the page unhealthy. */
    STORAGE_FSYNC_IMPLAUSIBLE("storage_fsync_implausible"),
    STORAGE_FSYNC_SLOW("storage_fsync_slow"),
    DATA_BUDGET_WARNING("data_budget_warning"),
    DATA_BUDGET_EXCEEDED("data_budget_exceeded");

    private final String wire;

    AlarmCode(String wire) {
        this.wire = wire;
    }

    /** The code as the status page and the metrics show it. */
    public String wire() {
        return wire;
    }

    @Override
    public String toString() {
        return wire;
    }
}
