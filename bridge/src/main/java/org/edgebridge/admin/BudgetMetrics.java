package org.edgebridge.admin;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.edgebridge.budget.DataBudget;
import org.edgebridge.forward.WireBytes;
import org.jspecify.annotations.Nullable;

/** The data budget in {@code /metrics} ({@link DataBudget}); NaN where there is no figure (no budget, nothing sent). */
final class BudgetMetrics {
    private BudgetMetrics() {}

    static void register(MeterRegistry registry, DataBudget budget, WireBytes wire) {
        FunctionCounter.builder("edgebridge.central.sent", wire, WireBytes::sentBytes)
                .baseUnit("bytes")
                .description("bytes sent to central since start: request lines, headers, bodies as sent, TLS records")
                .register(registry);
        FunctionCounter.builder("edgebridge.central.received", wire, WireBytes::receivedBytes)
                .baseUnit("bytes")
                .description("bytes received from central since start: status lines, headers, bodies, TLS records")
                .register(registry);
        Gauge.builder(
                        "edgebridge.central.month",
                        budget,
                        b -> b.snapshot().month().totalBytes())
                .baseUnit("bytes")
                .description("bytes to and from central this calendar month (UTC), kept across restarts")
                .register(registry);
        Gauge.builder(
                        "edgebridge.central.today",
                        budget,
                        b -> b.snapshot().today().totalBytes())
                .baseUnit("bytes")
                .description("bytes to and from central today (UTC)")
                .register(registry);
        Gauge.builder(
                        "edgebridge.central.compression.ratio",
                        budget,
                        b -> orNaN(b.snapshot().compressionRatio()))
                .description("request bodies before compression over as sent, this month")
                .register(registry);
        Gauge.builder(
                        "edgebridge.data.budget",
                        budget,
                        b -> orNaN(
                                b.snapshot().budgetBytes() == null
                                        ? null
                                        : b.snapshot().budgetBytes().doubleValue()))
                .baseUnit("bytes")
                .description("ingest.dataBudget: bytes a month; NaN when unset")
                .register(registry);
        Gauge.builder(
                        "edgebridge.data.budget.used.ratio",
                        budget,
                        b -> orNaN(b.snapshot().usedRatio()))
                .description("this month's bytes over ingest.dataBudget (1 = all of it); NaN when unset")
                .register(registry);
    }

    private static double orNaN(@Nullable Double v) {
        return v == null ? Double.NaN : v;
    }
}
