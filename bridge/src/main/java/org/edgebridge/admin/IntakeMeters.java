package org.edgebridge.admin;

import static org.edgebridge.admin.Counters.counter;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import org.edgebridge.code.ReceiptCode;
import org.edgebridge.intake.IntakeStats;
import org.edgebridge.intake.IntakeView;

/**
 * The intake's meters ({@code edgebridge_intake_*}): commands seen, stored, answered from the outbox, refused for now
 * (the outbox full, a device at its share, a failed write) and rejected, per code.
 */
final class IntakeMeters {
    /** The codes the intake rejects commands with: a series each, from start. */
    private static final List<String> REJECTION_CODES = ReceiptCode.ofKind(ReceiptCode.Kind.REJECTED).stream()
            .map(ReceiptCode::wire)
            .toList();

    private IntakeMeters() {}

    static void register(PrometheusMeterRegistry registry, IntakeView intake) {
        counter(
                registry,
                "edgebridge.intake.device.outbox.full",
                intake,
                IntakeView::deviceShareRefusals,
                "commands refused retry_later / device_outbox_full: their device held its share of the outbox");

        IntakeStats stats = intake.stats();
        counter(registry, "edgebridge.intake.received", stats, IntakeStats::received, "command PUBLISHes seen");
        counter(registry, "edgebridge.intake.stored", stats, IntakeStats::stored, "commands stored (custody taken)");
        counter(
                registry,
                "edgebridge.intake.replayed",
                stats,
                IntakeStats::replayed,
                "resends answered with the latest receipt");
        counter(
                registry,
                "edgebridge.intake.retry.later",
                stats,
                IntakeStats::retryLater,
                "commands refused for now (retry_later)");
        counter(
                registry,
                "edgebridge.intake.store.failures",
                stats,
                IntakeStats::storeFailures,
                "outbox writes that failed (e.g. disk full); their commands got retry_later / outbox_unavailable");
        for (String code : REJECTION_CODES) {
            FunctionCounter.builder(
                            "edgebridge.intake.rejected",
                            stats,
                            s -> s.rejectedByCode().getOrDefault(code, 0L))
                    .description("commands rejected at the bridge, per code")
                    .tag("code", code)
                    .register(registry);
        }
    }
}
