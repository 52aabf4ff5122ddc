package org.edgebridge.admin;

import static org.edgebridge.admin.Counters.counter;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Supplier;
import org.edgebridge.intake.IntakeView;
import org.edgebridge.outbox.AdminOutbox;
import org.edgebridge.outbox.CommandState;
import org.edgebridge.outbox.OutboxCounts;
import org.edgebridge.outbox.RetentionPurger;
import org.jspecify.annotations.Nullable;

/**
 * The outbox's meters ({@code edgebridge_outbox_*}): rows per state (read at most once a second), the oldest open
 * command, the limits the intake holds it to, its one writer, retention's purges and the file's free pages.
 */
final class OutboxMeters {
    private OutboxMeters() {}

    static void register(
            PrometheusMeterRegistry registry,
            AdminOutbox outbox,
            IntakeView intake,
            RetentionPurger retention,
            Clock clock) {
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
                registry,
                "edgebridge.outbox.writer.transactions",
                outbox,
                o -> o.writerFigures().transactions(),
                "transactions of the outbox's one writer (every write of the bridge)");
        counter(
                registry,
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
                registry,
                "edgebridge.outbox.receipt.acks.unrecorded",
                outbox,
                o -> o.writerFigures().receiptAcksUnrecorded(),
                "devices' PUBACKs of final receipts left out of their command's timeline (too many waited for the "
                        + "writer)");
        counter(
                registry,
                "edgebridge.outbox.purged",
                retention,
                r -> r.status().purged(),
                "final rows deleted by retention");
        Gauge.builder("edgebridge.outbox.free.page.bytes", outbox, OutboxMeters::freeBytes)
                .baseUnit("bytes")
                .description("free pages in the outbox file: reused before the file grows, counted as free disk "
                        + "for outbox.minFreeDisk; given back to the file system after each retention run")
                .register(registry);
        counter(
                registry,
                "edgebridge.outbox.pages.given.back",
                retention,
                r -> r.status().pagesGivenBack(),
                "free pages of the outbox file given back to the file system (incremental vacuum)");
        Gauge.builder(
                        "edgebridge.outbox.max.pending.per.device",
                        intake,
                        i -> i.deviceShare().maxCommands())
                .description("outbox.maxPendingPerDevice: one device's open commands at which its new ones get "
                        + "retry_later / device_outbox_full")
                .register(registry);
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
}
