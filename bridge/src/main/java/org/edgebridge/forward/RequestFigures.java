package org.edgebridge.forward;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;

/**
 * What a site measures of its requests to central: how long each took, from the first byte sent to the last byte of
 * the reply read ({@code edgebridge_forwarder_request_duration_seconds}, a Prometheus histogram with fixed buckets up
 * to {@code ingest.timeout}'s range), and how many events each carried ({@code edgebridge_forwarder_batch_events}, a
 * histogram by batch size). Fixed buckets, so that nothing central does grows them. Thread-safe.
 */
final class RequestFigures {
    private static final Duration[] BUCKETS = {
        Duration.ofMillis(1),
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
        Duration.ofMinutes(1)
    };
    private static final double[] BATCH_BUCKETS = {1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 5000};

    private final Timer duration;
    private final DistributionSummary batchEvents;

    RequestFigures(MeterRegistry registry) {
        this.duration = Timer.builder("edgebridge.forwarder.request.duration")
                .description("one request to central, from sending it to the end of its reply (whatever the reply)")
                .serviceLevelObjectives(BUCKETS)
                .minimumExpectedValue(BUCKETS[0])
                .maximumExpectedValue(BUCKETS[BUCKETS.length - 1])
                .register(registry);
        this.batchEvents = DistributionSummary.builder("edgebridge.forwarder.batch.events")
                .description("events in one request to central")
                .serviceLevelObjectives(BATCH_BUCKETS)
                .minimumExpectedValue(1.0)
                .maximumExpectedValue(BATCH_BUCKETS[BATCH_BUCKETS.length - 1])
                .register(registry);
    }

    void request(long startNanos, int events) {
        duration.record(Duration.ofNanos(System.nanoTime() - startNanos));
        batchEvents.record(events);
    }
}
