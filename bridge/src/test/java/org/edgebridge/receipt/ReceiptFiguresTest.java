package org.edgebridge.receipt;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import org.edgebridge.TestClock;
import org.junit.jupiter.api.Test;

class ReceiptFiguresTest {
    private final TestClock clock = new TestClock(Instant.parse("2026-12-02T06:00:00Z"));
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ReceiptFigures figures = new ReceiptFigures(registry, clock);

    @Test
    void latencies_from_publish_land_in_the_prometheus_histogram_buckets_of_their_receipt() {
        Instant published = clock.instant();
        clock.advance(Duration.ofMillis(4));
        figures.stored(published);
        clock.advance(Duration.ofMinutes(20));
        figures.finalSent(published, "accepted", null);

        String text = registry.scrape();
        assertThat(text)
                .contains(
                        "edgebridge_receipt_latency_seconds_bucket{receipt=\"stored\",le=\"0.005\"} 1",
                        "edgebridge_receipt_latency_seconds_bucket{receipt=\"stored\",le=\"0.002\"} 0",
                        "edgebridge_receipt_latency_seconds_bucket{receipt=\"final\",le=\"900.0\"} 0",
                        "edgebridge_receipt_latency_seconds_bucket{receipt=\"final\",le=\"3600.0\"} 1",
                        "edgebridge_receipt_finals_total{code=\"none\",status=\"accepted\"} 1.0");
    }

    @Test
    void a_central_that_invents_codes_gets_at_most_MAX_CODES_series_and_the_rest_count_as_other() {
        Instant published = clock.instant();
        for (int i = 0; i < 1_000; i++) {
            figures.finalSent(published, "rejected", "code-" + i);
        }
        figures.finalSent(published, "rejected", "code-0");

        assertThat(registry.find("edgebridge.receipt.finals").counters()).hasSize(ReceiptFigures.MAX_CODES + 1);
        assertThat(registry.get("edgebridge.receipt.finals")
                        .tag("code", "other")
                        .counter()
                        .count())
                .isEqualTo(1_000 - ReceiptFigures.MAX_CODES);
        assertThat(registry.get("edgebridge.receipt.finals")
                        .tag("code", "code-0")
                        .counter()
                        .count())
                .isEqualTo(2);
    }
}
