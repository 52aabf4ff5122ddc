package org.edgebridge.admin;

import static org.edgebridge.admin.Counters.counter;

import io.github.resilience4j.micrometer.tagged.TaggedBulkheadMetrics;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.github.resilience4j.micrometer.tagged.TaggedRateLimiterMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Map;
import java.util.function.Function;
import org.edgebridge.forward.ForwarderControl;
import org.edgebridge.forward.ForwarderStatus;

/**
 * The forwarder's meters ({@code edgebridge_forwarder_*}): requests, events, finals, parked and expired events,
 * central's broken contracts and cut replies, failures in a row, the pause; and Resilience4j's circuit breaker, rate
 * limiters and bulkheads ({@code resilience4j_*}).
 */
final class ForwarderMeters {
    private ForwarderMeters() {}

    static void register(PrometheusMeterRegistry registry, ForwarderControl forwarder) {
        TaggedCircuitBreakerMetrics.ofCircuitBreakerRegistry(forwarder.circuitBreakers())
                .bindTo(registry);
        TaggedRateLimiterMetrics.ofRateLimiterRegistry(forwarder.rateLimiters()).bindTo(registry);
        TaggedBulkheadMetrics.ofBulkheadRegistry(forwarder.bulkheads()).bindTo(registry);

        counter(
                registry,
                "edgebridge.forwarder.requests",
                forwarder,
                f -> f.status().requests(),
                "requests sent to central");
        counter(
                registry,
                "edgebridge.forwarder.events",
                forwarder,
                f -> f.status().eventsSent(),
                "events in requests that central received (it answered with an HTTP status)");
        counter(
                registry,
                "edgebridge.forwarder.finals",
                forwarder,
                f -> f.status().finals(),
                "final receipts from central");
        counter(
                registry,
                "edgebridge.forwarder.parked",
                forwarder,
                f -> f.status().parked(),
                "events parked (maxAttempts retry_later answers, or maxServerErrors failures alone)");
        counter(
                registry,
                "edgebridge.forwarder.missing.receipts",
                forwarder,
                f -> f.status().missingReceipts(),
                "events central answered without a receipt for (a contract violation)");
        counter(
                registry,
                "edgebridge.forwarder.expired",
                forwarder,
                f -> f.status().expiry().expired(),
                "commands that expired before they were sent to central: final here, rejected / expired");
        counter(
                registry,
                "edgebridge.forwarder.expired.reported",
                forwarder,
                f -> f.status().expiry().reportedToCentral(),
                "expired commands central was told of (docs/protocol.md §2.2)");
        tagged(
                registry,
                "edgebridge.forwarder.receipt.violations",
                "kind",
                forwarder,
                s -> s.receiptViolations().counts(),
                "receipts of central that broke the contract (docs/protocol.md §2.3)");
        tagged(
                registry,
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
    }

    /** One counter per key of a map of the forwarder's status, tagged with the key. */
    private static void tagged(
            PrometheusMeterRegistry registry,
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

    private static double paused(ForwarderStatus s) {
        return s.pausedByAdmin()
                        || s.state().equals("paused_by_central")
                        || s.state().equals("redirected_by_central")
                ? 1
                : 0;
    }
}
