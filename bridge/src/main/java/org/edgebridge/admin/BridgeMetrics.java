package org.edgebridge.admin;

import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.edgebridge.broker.BrokerView;
import org.edgebridge.forward.ForwarderControl;
import org.edgebridge.intake.IntakeView;
import org.edgebridge.outbox.AdminOutbox;
import org.edgebridge.outbox.RetentionPurger;
import org.edgebridge.receipt.ReceiptSender;

/**
 * The bridge's metrics in Prometheus form ({@code GET /metrics}): outbox, intake, forwarder (with Resilience4j's
 * circuit breaker and rate limiters), broker, and the JVM. Values are read from the parts' status records
 * when scraped; outbox counts are read at most once a second.
 *
 * <p>Each part's meters are registered by a class of their own ({@link OutboxMeters}, {@link IntakeMeters},
 * {@link ForwarderMeters}, {@link IngestCredentialMeters}, {@link ReceiptMeters}, {@link BrokerMeters}); this class
 * binds the JVM's, holds the GC metrics it closes, and sets the per-scrape gauges (alarms raised, devices at their
 * share) before each scrape.
 */
final class BridgeMetrics implements AutoCloseable {
    private final PrometheusMeterRegistry registry;
    private final JvmGcMetrics gc = new JvmGcMetrics();

    private final Supplier<List<StatusReport.Alarm>> alarms;
    private final MultiGauge activeAlarms;
    private final MultiGauge devicesAtShare;
    private final IntakeView intake;

    /**
     * @param registry where every part's meters are (the receipts' latency histograms among them); its owner closes it
     * @param alarms the alarms raised now, read at each scrape for {@code edgebridge_alarm_active}
     */
    BridgeMetrics(
            PrometheusMeterRegistry registry,
            AdminOutbox outbox,
            IntakeView intake,
            ForwarderControl forwarder,
            BrokerView broker,
            RetentionPurger retention,
            ReceiptSender receipts,
            Supplier<List<StatusReport.Alarm>> alarms,
            Clock clock) {
        this.registry = registry;
        this.alarms = alarms;
        this.intake = intake;
        this.devicesAtShare = MultiGauge.builder("edgebridge.outbox.device.full")
                .description("open commands of a device refused retry_later / device_outbox_full lately (at most "
                        + "10 devices are named, the most open commands first); no series while none is")
                .register(registry);
        this.activeAlarms = MultiGauge.builder("edgebridge.alarm.active")
                .description("alarms raised now, per code (as on /api/status; how many, for an alarm that can repeat "
                        + "such as "
                        + "takeover_storm); a code has no series while its alarm is not raised")
                .register(registry);
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        OutboxMeters.register(registry, outbox, intake, retention, clock);
        IntakeMeters.register(registry, intake);
        ForwarderMeters.register(registry, forwarder);
        IngestCredentialMeters.register(registry, forwarder);
        ReceiptMeters.register(registry, receipts);
        BrokerMeters.register(registry, broker);
    }

    String scrape() {
        Map<String, Long> raised = alarms.get().stream()
                .collect(Collectors.groupingBy(StatusReport.Alarm::code, TreeMap::new, Collectors.counting()));
        activeAlarms.register(
                raised.entrySet().stream()
                        .map(a -> MultiGauge.Row.of(Tags.of("code", a.getKey()), a.getValue()))
                        .toList(),
                true);
        devicesAtShare.register(
                intake.devicesAtShare().stream()
                        .map(d -> MultiGauge.Row.of(Tags.of("client_id", d.clientId()), d.openCommands()))
                        .toList(),
                true);
        return registry.scrape();
    }

    @Override
    public void close() {
        gc.close();
    }
}
