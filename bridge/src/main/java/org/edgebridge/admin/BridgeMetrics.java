package org.edgebridge.admin;

import io.github.resilience4j.micrometer.tagged.TaggedBulkheadMetrics;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.github.resilience4j.micrometer.tagged.TaggedRateLimiterMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
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
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;
import org.edgebridge.broker.BrokerView;
import org.edgebridge.broker.DeviceView;
import org.edgebridge.code.ReceiptCode;
import org.edgebridge.forward.ForwarderControl;
import org.edgebridge.forward.ForwarderStatus;
import org.edgebridge.intake.IntakeStats;
import org.edgebridge.intake.IntakeView;
import org.edgebridge.outbox.AdminOutbox;
import org.edgebridge.outbox.CommandState;
import org.edgebridge.outbox.OutboxCounts;
import org.edgebridge.outbox.RetentionPurger;
import org.edgebridge.receipt.ReceiptSender;
import org.jspecify.annotations.Nullable;

/**
 * The bridge's metrics in Prometheus form ({@code GET /metrics}): outbox, intake, forwarder (with Resilience4j's
 * circuit breaker and rate limiters), broker, and the JVM. Values are read from the parts' status records
 * when scraped; outbox counts are read at most once a second.
 */
final class BridgeMetrics implements AutoCloseable {
    /** The codes the intake rejects commands with: a series each, from start. */
    static final List<String> REJECTION_CODES = ReceiptCode.ofKind(ReceiptCode.Kind.REJECTED).stream()
            .map(ReceiptCode::wire)
            .toList();

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
        TaggedCircuitBreakerMetrics.ofCircuitBreakerRegistry(forwarder.circuitBreakers())
                .bindTo(registry);
        TaggedRateLimiterMetrics.ofRateLimiterRegistry(forwarder.rateLimiters()).bindTo(registry);
        TaggedBulkheadMetrics.ofBulkheadRegistry(forwarder.bulkheads()).bindTo(registry);

        Supplier<OutboxCounts> counts = memoize(outbox.reads()::counts, Duration.ofSeconds(1));
        for (CommandState state : CommandState.values()) {
            Gauge.builder("edgebridge.outbox.commands", counts, c -> c.get().count(state))
                    .description("outbox rows per state")
                    .tag("state", state.dbName())
                    .strongReference(true)
                    .register(registry);
        }
        Gauge.builder(
                        "edgebridge.outbox.oldest.open.age.seconds",
                        counts,
                        c -> c.get()
                                .oldestPendingReceivedAt()
                                .map(t -> Duration.between(t, clock.instant()).toMillis() / 1000.0)
                                .orElse(0.0))
                .description("age of the oldest command that is not final")
                .strongReference(true)
                .register(registry);
        Gauge.builder("edgebridge.outbox.open", outbox, AdminOutbox::openCount)
                .description("commands not final yet (back-pressure counts these)")
                .register(registry);
        Gauge.builder("edgebridge.outbox.max.pending", intake, IntakeView::maxPending)
                .description("outbox.maxPending: open commands at which new ones get retry_later / outbox_full")
                .register(registry);
        Gauge.builder("edgebridge.outbox.full", intake, i -> i.isFull() ? 1 : 0)
                .description("1 while new commands get retry_later / outbox_full")
                .register(registry);
        counter(
                "edgebridge.outbox.writer.transactions",
                outbox,
                o -> o.writerFigures().transactions(),
                "transactions of the outbox's one writer (every write of the bridge)");
        counter(
                "edgebridge.outbox.writer.requests",
                outbox,
                o -> o.writerFigures().requests(),
                "write requests run by the outbox writer (per transaction: requests / transactions)");
        FunctionCounter.builder(
                        "edgebridge.outbox.writer.busy",
                        outbox,
                        o -> o.writerFigures().busySeconds())
                .baseUnit("seconds")
                .description("time the outbox writer spent in transactions (rate: its busy share)")
                .register(registry);
        counter(
                "edgebridge.outbox.receipt.acks.unrecorded",
                outbox,
                o -> o.writerFigures().receiptAcksUnrecorded(),
                "devices' PUBACKs of final receipts left out of their command's timeline (too many waited for the "
                        + "writer)");
        counter("edgebridge.outbox.purged", retention, r -> r.status().purged(), "final rows deleted by retention");
        Gauge.builder("edgebridge.outbox.free.page.bytes", outbox, BridgeMetrics::freeBytes)
                .baseUnit("bytes")
                .description("free pages in the outbox file: reused before the file grows, counted as free disk "
                        + "for outbox.minFreeDisk; given back to the file system after each retention run")
                .register(registry);
        counter(
                "edgebridge.outbox.pages.given.back",
                retention,
                r -> r.status().pagesGivenBack(),
                "free pages of the outbox file given back to the file system (incremental vacuum)");

        counter(
                "edgebridge.intake.device.outbox.full",
                intake,
                IntakeView::deviceShareRefusals,
                "commands refused retry_later / device_outbox_full: their device held its share of the outbox");
        Gauge.builder(
                        "edgebridge.outbox.max.pending.per.device",
                        intake,
                        i -> i.deviceShare().maxCommands())
                .description("outbox.maxPendingPerDevice: one device's open commands at which its new ones get "
                        + "retry_later / device_outbox_full")
                .register(registry);

        IntakeStats stats = intake.stats();
        counter("edgebridge.intake.received", stats, IntakeStats::received, "command PUBLISHes seen");
        counter("edgebridge.intake.stored", stats, IntakeStats::stored, "commands stored (custody taken)");
        counter("edgebridge.intake.replayed", stats, IntakeStats::replayed, "resends answered with the latest receipt");
        counter(
                "edgebridge.intake.retry.later",
                stats,
                IntakeStats::retryLater,
                "commands refused for now (retry_later)");
        counter(
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

        counter("edgebridge.forwarder.requests", forwarder, f -> f.status().requests(), "requests sent to central");
        counter(
                "edgebridge.forwarder.events",
                forwarder,
                f -> f.status().eventsSent(),
                "events in requests that central received (it answered with an HTTP status)");
        counter("edgebridge.forwarder.finals", forwarder, f -> f.status().finals(), "final receipts from central");
        counter(
                "edgebridge.forwarder.parked",
                forwarder,
                f -> f.status().parked(),
                "events parked (maxAttempts retry_later answers, or maxServerErrors failures alone)");
        counter(
                "edgebridge.forwarder.missing.receipts",
                forwarder,
                f -> f.status().missingReceipts(),
                "events central answered without a receipt for (a contract violation)");
        counter(
                "edgebridge.forwarder.expired",
                forwarder,
                f -> f.status().expiry().expired(),
                "commands that expired before they were sent to central: final here, rejected / expired");
        counter(
                "edgebridge.forwarder.expired.reported",
                forwarder,
                f -> f.status().expiry().reportedToCentral(),
                "expired commands central was told of (docs/protocol.md §2.2)");
        tagged(
                "edgebridge.forwarder.receipt.violations",
                "kind",
                forwarder,
                s -> s.receiptViolations().counts(),
                "receipts of central that broke the contract (docs/protocol.md §2.3)");
        tagged(
                "edgebridge.forwarder.replies.cut",
                "reason",
                forwarder,
                ForwarderStatus::cutReplies,
                "replies of central cut off: deadline = the exchange took longer than ingest.timeout, too_large = "
                        + "the body was longer than ingest.maxReplyBytes");
        Gauge.builder(
                        "edgebridge.forwarder.failures.to.park",
                        forwarder,
                        f -> f.status().serverErrors().failuresToPark())
                .description("failures alone in a row that park an event now: forwarder.maxServerErrors, more while "
                        + "central fails other requests too")
                .register(registry);
        Gauge.builder(
                        "edgebridge.forwarder.central.failed.share",
                        forwarder,
                        f -> f.status().serverErrors().failedShare())
                .description("share of the last requests without a suspect that central failed (5xx, timeouts, dropped "
                        + "connections), smoothed")
                .register(registry);
        Gauge.builder(
                        "edgebridge.forwarder.consecutive.failures",
                        forwarder,
                        f -> f.status().consecutiveFailures())
                .description("requests to central that failed in a row (transport errors and 5xx); 0 after a success")
                .register(registry);
        Gauge.builder("edgebridge.forwarder.paused", forwarder, f -> paused(f.status()))
                .description("1 while paused by an admin or by central's 401/403/4xx")
                .register(registry);

        credentials(forwarder);

        counter("edgebridge.receipts.sent", receipts, ReceiptSender::sentCount, "receipts handed to the broker");
        counter(
                "edgebridge.receipts.refused",
                receipts,
                ReceiptSender::refusedCount,
                "receipts the broker could not take (its queues full); devices get them again when they resend");
        FunctionCounter.builder(
                        "edgebridge.broker.receipts.left.out",
                        broker,
                        b -> b.status().limits().receiptsDropped())
                .tag("bound", "device")
                .description("receipts not queued for a device (mqtt.maxQueuedReceipts, "
                        + "mqtt.maxQueuedReceiptBytes); the device gets them when it resends")
                .register(registry);
        FunctionCounter.builder(
                        "edgebridge.broker.receipts.left.out",
                        broker,
                        b -> b.status().limits().receiptsDroppedSiteFull())
                .tag("bound", "site")
                .description("receipts not queued "
                        + "because all devices' queues together were full (mqtt.maxQueuedReceiptsTotal, "
                        + "mqtt.maxQueuedReceiptBytesTotal)")
                .register(registry);
        Gauge.builder(
                        "edgebridge.broker.queued.receipts",
                        broker,
                        b -> b.status().limits().queuedReceipts())
                .description("receipts queued by the broker for all devices, as last seen")
                .register(registry);
        Gauge.builder(
                        "edgebridge.broker.queued.receipt.bytes",
                        broker,
                        b -> b.status().limits().queuedReceiptBytes())
                .baseUnit("bytes")
                .description("their bytes")
                .register(registry);
        Gauge.builder(
                        "edgebridge.broker.connected.clients",
                        broker,
                        b -> b.status().connectedClients())
                .description("MQTT connections of devices open now")
                .register(registry);
        counter(
                "edgebridge.broker.denied.publishes",
                broker,
                b -> b.status().deniedPublishes(),
                "PUBLISHes refused by the ACL");
        counter(
                "edgebridge.broker.denied.subscribes",
                broker,
                b -> b.status().deniedSubscribes(),
                "SUBSCRIBEs refused by the ACL");
        counter(
                "edgebridge.broker.protocol.violations",
                broker,
                b -> b.status().protocolViolations(),
                "connections closed for malformed or oversized packets");
        counter(
                "edgebridge.broker.store.resets",
                broker,
                b -> b.status().storeResets(),
                "broker stores set aside by this process because the broker could not start on them (alarm "
                        + "broker_store_reset)");
        counter(
                "edgebridge.broker.takeovers",
                broker,
                b -> b.devices().list().stream()
                        .mapToLong(DeviceView::takeovers)
                        .sum(),
                "session takeovers");
        Gauge.builder(
                        "edgebridge.broker.takeover.storms",
                        broker,
                        b -> b.takeoverStorms().size())
                .description("client ids over the takeover alarm threshold in the last minute")
                .register(registry);
        loginsRefused(broker, "credentials", b -> b.status().loginsRefusedCredentials());
        loginsRefused(broker, "throttled", b -> b.status().loginsRefusedThrottled());
        loginsRefused(broker, "busy", b -> b.status().loginsRefusedBusy());
        loginsRefused(broker, "busy_address", b -> b.status().loginsRefusedBusyAddress());
        counter(
                "edgebridge.broker.connections.before.login.oldest.closed",
                broker,
                b -> b.status().limits().beforeLoginOldestClosed(),
                "connections that had not logged in closed, the oldest, "
                        + "to make room for a new one (mqtt.maxConnectionsBeforeLogin, "
                        + "mqtt.maxConnectionsBeforeLoginPerNetwork)");
        Gauge.builder(
                        "edgebridge.broker.connections.before.login",
                        broker,
                        b -> b.status().limits().openBeforeLogin())
                .description("MQTT connections open now that have not logged in")
                .register(registry);
        counter(
                "edgebridge.broker.connections.held.too.many",
                broker,
                b -> b.status().limits().heldTooMany(),
                "connections closed for sending more than mqtt.maxHeldPackets packets before their CONNECT was taken");
        loginsRefused(broker, "certificate_needed", b -> b.certificateDevices().refusedWithoutCertificate());
        Gauge.builder(
                        "edgebridge.broker.certificate.devices",
                        broker,
                        b -> b.certificateDevices().remembered())
                .description("client ids remembered because they connected with a client certificate (each needs it "
                        + "on every listener); at most auth.maxCertificateDevices")
                .register(registry);
        counter(
                "edgebridge.broker.certificate.devices.not.remembered",
                broker,
                b -> b.certificateDevices().notRemembered(),
                "client ids that connected with a certificate but were not remembered: auth.maxCertificateDevices "
                        + "reached");
        Gauge.builder(
                        "edgebridge.broker.waiting.publishes",
                        broker,
                        b -> b.status().waitingPublishes())
                .description("PUBLISHes waiting in front of the intake writer (the broker's interceptor queue and the "
                        + "intake's queue)")
                .register(registry);
        Gauge.builder(
                        "edgebridge.broker.waiting.publishes.most",
                        broker,
                        b -> b.status().mostWaitingPublishes())
                .description("the most PUBLISHes seen waiting in front of the intake since start")
                .register(registry);
        counter(
                "edgebridge.broker.read.pauses",
                broker,
                b -> b.status().readPauses(),
                "times a device connection stopped being read because too many PUBLISHes waited for the intake");
        counter(
                "edgebridge.broker.awaiting.commit.pauses",
                broker,
                b -> b.status().limits().awaitingCommitPauses(),
                "times a device connection stopped being read because mqtt.maxCommandsAwaitingCommit of its commands, "
                        + "or mqtt.maxBytesAwaitingCommit of their payloads, waited for their commit (their PUBACKs)");
        Gauge.builder(
                        "edgebridge.broker.awaiting.commit.most",
                        broker,
                        b -> b.status().limits().mostAwaitingCommit())
                .description(
                        "the most commands of one connection seen waiting for their commit (and PUBACK) since start")
                .register(registry);
        Gauge.builder(
                        "edgebridge.broker.awaiting.commit.most.bytes",
                        broker,
                        b -> b.status().limits().mostAwaitingCommitBytes())
                .description("the most payload bytes of one connection seen waiting for their commit since start")
                .baseUnit("bytes")
                .register(registry);
        counter(
                "edgebridge.broker.wills",
                broker,
                b -> b.status().willsReceived(),
                "Last Wills of broken connections, taken as commands of their devices");
    }

    /** The client certificate for central (and the tokens from the OAuth2 token endpoint), when configured. */
    private void credentials(ForwarderControl forwarder) {
        if (forwarder.status().clientCertificate().isPresent()) {
            Gauge.builder(
                            "edgebridge.ingest.client.certificate.expiry.timestamp",
                            forwarder,
                            f -> f.status()
                                    .clientCertificate()
                                    .map(c -> c.notAfter().getEpochSecond())
                                    .orElse(0L))
                    .baseUnit("seconds")
                    .description("when the client certificate presented to central (ingest.certFile) "
                            + "expires, in Unix seconds (alarm ingest_certificate_expiring before, "
                            + "ingest_certificate_expired after)")
                    .register(registry);
            counter(
                    "edgebridge.ingest.client.certificate.reloads",
                    forwarder,
                    f -> f.status().clientCertificate().map(c -> c.reloads()).orElse(0L),
                    "changed client certificate files taken into use since start");
        }
        if (forwarder.status().oauth2().isPresent()) {
            counter(
                    "edgebridge.ingest.token.requests",
                    forwarder,
                    f -> f.status().oauth2().map(t -> t.requests()).orElse(0L),
                    "requests to the OAuth2 token endpoint (ingest.oauth2.tokenUrl) since start");
            counter(
                    "edgebridge.ingest.token.failures",
                    forwarder,
                    f -> f.status().oauth2().map(t -> t.failures()).orElse(0L),
                    "requests to the OAuth2 token endpoint that got no token (alarm ingest_token_endpoint_failing)");
            counter(
                    "edgebridge.ingest.token.renewals.after.401",
                    forwarder,
                    f -> f.status().oauth2().map(t -> t.refreshedAfter401()).orElse(0L),
                    "tokens dropped because central answered 401 to them (the request was sent once more with a new "
                            + "one)");
        }
    }

    private void loginsRefused(BrokerView broker, String reason, ToDoubleFunction<BrokerView> f) {
        FunctionCounter.builder("edgebridge.broker.logins.refused", broker, f)
                .tag("reason", reason)
                .description("CONNECTs refused at login: credentials = wrong, unknown or missing (CONNACK 4); "
                        + "throttled = "
                        + "too many failed logins of the client id or address this minute, busy = too many password "
                        + "checks "
                        + "waiting (auth.queue), busy_address = too many of one address (auth.queuePerAddress) (all "
                        + "CONNACK 3); certificate_needed = a client id that needs its client certificate came without "
                        + "it "
                        + "(CONNACK 5)")
                .register(registry);
    }

    /** One counter per key of a map of the forwarder's status, tagged with the key. */
    private void tagged(
            String name,
            String tag,
            ForwarderControl forwarder,
            Function<ForwarderStatus, Map<String, Long>> counts,
            String description) {
        for (String key : counts.apply(forwarder.status()).keySet()) {
            FunctionCounter.builder(
                            name, forwarder, f -> counts.apply(f.status()).get(key))
                    .tag(tag, key)
                    .description(description)
                    .register(registry);
        }
    }

    private <T> void counter(String name, T source, ToDoubleFunction<T> f, String description) {
        FunctionCounter.builder(name, source, f).description(description).register(registry);
    }

    private static double paused(ForwarderStatus s) {
        return s.pausedByAdmin()
                        || s.state().equals("paused_by_central")
                        || s.state().equals("redirected_by_central")
                ? 1
                : 0;
    }

    private static <T> Supplier<T> memoize(Supplier<T> source, Duration ttl) {
        return new Supplier<>() {
            private @Nullable T value;
            private long readAt;

            @Override
            public synchronized T get() {
                long now = System.nanoTime();
                if (value == null || now - readAt > ttl.toNanos()) {
                    value = source.get();
                    readAt = now;
                }
                return value;
            }
        };
    }

    private static double freeBytes(AdminOutbox outbox) {
        try {
            return outbox.freeBytes();
        } catch (RuntimeException e) {
            return Double.NaN;
        }
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
