package org.edgebridge.receipt;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * What a site measures of its receipts (the figures the offline-first design asks for): how long a command took
 * from its PUBLISH to its {@code stored} receipt and to its final receipt, as Prometheus histograms with fixed
 * buckets ({@code edgebridge_receipt_latency_seconds_bucket{receipt="stored"|"final"}}), and the finals by status
 * and code ({@code edgebridge_receipt_finals_total{status, code}}), so that the share of each is one query.
 *
 * <p>Codes come from central, which is untrusted input: the first {@link #MAX_CODES} codes seen get a series of their
 * own, any later one counts as {@code code="other"}, so that a central inventing codes cannot grow the metrics
 * without bound. Thread-safe.
 */
public final class ReceiptFigures {
    /** Distinct receipt codes that get a series of their own; later ones count as {@code other}. */
    public static final int MAX_CODES = 32;

    private static final Duration[] BUCKETS = {
        Duration.ofMillis(2),
        Duration.ofMillis(5),
        Duration.ofMillis(10),
        Duration.ofMillis(25),
        Duration.ofMillis(50),
        Duration.ofMillis(100),
        Duration.ofMillis(250),
        Duration.ofMillis(500),
        Duration.ofSeconds(1),
        Duration.ofSeconds(2),
        Duration.ofSeconds(5),
        Duration.ofSeconds(10),
        Duration.ofSeconds(30),
        Duration.ofMinutes(1),
        Duration.ofMinutes(5),
        Duration.ofMinutes(15),
        Duration.ofHours(1),
        Duration.ofHours(6),
        Duration.ofDays(1)
    };

    private final MeterRegistry registry;
    private final Clock clock;
    private final Timer stored;
    private final Timer finals;
    private final Map<String, Counter> finalsByStatusAndCode = new ConcurrentHashMap<>();
    private final Map<String, Boolean> codes = new ConcurrentHashMap<>();

    public ReceiptFigures(MeterRegistry registry, Clock clock) {
        this.registry = registry;
        this.clock = clock;
        this.stored = latency("stored", "from a command's PUBLISH (as the broker received it) to its stored receipt");
        this.finals = latency("final", "from a command's PUBLISH to its first final receipt");
    }

    private Timer latency(String receipt, String description) {
        return Timer.builder("edgebridge.receipt.latency")
                .tag("receipt", receipt)
                .description(description)
                .serviceLevelObjectives(BUCKETS)
                .minimumExpectedValue(BUCKETS[0])
                .maximumExpectedValue(BUCKETS[BUCKETS.length - 1])
                .register(registry);
    }

    /** A command's first {@code stored} receipt went to the broker. */
    void stored(Instant receivedAt) {
        stored.record(since(receivedAt));
    }

    /** A command's first final receipt went to the broker. */
    void finalSent(Instant receivedAt, String status, @Nullable String code) {
        finals.record(since(receivedAt));
        String tag = code == null ? "none" : codes.size() < MAX_CODES || codes.containsKey(code) ? code : "other";
        if (code != null && !tag.equals("other")) {
            codes.putIfAbsent(code, Boolean.TRUE);
        }
        finalsByStatusAndCode
                .computeIfAbsent(
                        status + '\u0000' + tag,
                        k -> Counter.builder("edgebridge.receipt.finals")
                                .description(
                                        "final receipts sent to devices, per status and code (code \"none\" without "
                                                + "one, \"other\" past the first " + MAX_CODES + " codes seen)")
                                .tag("status", status)
                                .tag("code", tag)
                                .register(registry))
                .increment();
    }

    private Duration since(Instant receivedAt) {
        Duration d = Duration.between(receivedAt, clock.instant());
        return d.isNegative() ? Duration.ZERO : d;
    }
}
