package org.edgebridge.config;

import static org.edgebridge.config.ConfigKey.MAX_DURATION;
import static org.edgebridge.config.ConfigKey.durationKey;
import static org.edgebridge.config.ConfigKey.intKey;
import static org.edgebridge.config.ConfigKey.intSizeKey;

import java.time.Duration;

/**
 * The keys of the forwarder ({@code forwarder.*}): batch sizes, linger, the Resilience4j rate limits, circuit breaker
 * and backoff, and when an event is given up. Part of {@link ConfigKeys#ALL}.
 */
public final class ForwarderKeys {
    public static final ConfigKey<Integer> FORWARDER_MAX_EVENTS = intKey(
                    "forwarder.maxEvents", 500, 1, 10_000, "most events in one request to central")
            .see("docs/forwarding.md#batches-and-order");
    public static final ConfigKey<Integer> FORWARDER_MAX_BYTES = intSizeKey(
                    "forwarder.maxBytes",
                    "1MiB",
                    1024,
                    64 * 1024 * 1024,
                    "most bytes of one request body to central, as serialized JSON")
            .see("docs/forwarding.md#batches-and-order");
    public static final ConfigKey<Duration> FORWARDER_LINGER = durationKey(
                    "forwarder.linger",
                    "0ms",
                    Duration.ZERO,
                    Duration.ofSeconds(10),
                    "how long the first command after a quiet spell waits for more before its request goes")
            .see("docs/forwarding.md#batches-and-order");
    public static final ConfigKey<Integer> FORWARDER_REQUESTS_PER_SECOND = intKey(
                    "forwarder.requestsPerSecond",
                    400,
                    1,
                    100_000,
                    "requests to central per second at most, evenly spaced")
            .see("docs/forwarding.md#resilience4j-guards");
    public static final ConfigKey<Integer> FORWARDER_EVENTS_PER_SECOND = intKey(
                    "forwarder.eventsPerSecond", 5000, 1, 1_000_000, "events to central per second at most")
            .see("docs/forwarding.md#resilience4j-guards");
    public static final ConfigKey<Integer> FORWARDER_MAX_CONCURRENT_REQUESTS = intKey(
                    "forwarder.maxConcurrentRequests",
                    1,
                    1,
                    32,
                    "requests to central in flight at once (a Resilience4j bulkhead)")
            .see("docs/forwarding.md#resilience4j-guards");
    public static final ConfigKey<Integer> FORWARDER_MAX_ATTEMPTS = intKey(
                    "forwarder.maxAttempts", 50, 1, 1_000_000, "central retry_later answers before an event is parked")
            .see("docs/forwarding.md#replies");
    public static final ConfigKey<Duration> FORWARDER_BACKOFF_INITIAL = durationKey(
                    "forwarder.backoffInitial",
                    "500ms",
                    Duration.ofMillis(1),
                    Duration.ofMinutes(10),
                    "first wait after a failed request")
            .see("docs/forwarding.md#backoff");
    public static final ConfigKey<Duration> FORWARDER_BACKOFF_MAX = durationKey(
                    "forwarder.backoffMax",
                    "60s",
                    Duration.ofMillis(1),
                    Duration.ofHours(24),
                    "longest wait between failed requests")
            .see("docs/forwarding.md#backoff");
    public static final ConfigKey<Duration> FORWARDER_AUTH_RETRY_INTERVAL = durationKey(
                    "forwarder.authRetryInterval",
                    "60s",
                    Duration.ofSeconds(1),
                    Duration.ofHours(24),
                    "while central's answers pause forwarding (401, 404, a redirect, …), how often to try again")
            .see("docs/forwarding.md#replies");
    public static final ConfigKey<Integer> FORWARDER_BREAKER_FAILURE_RATE = intKey(
                    "forwarder.breakerFailureRate",
                    50,
                    1,
                    100,
                    "percent of failed calls (of the last 20) that opens the circuit breaker")
            .see("docs/forwarding.md#resilience4j-guards");
    public static final ConfigKey<Duration> FORWARDER_BREAKER_OPEN_FOR = durationKey(
                    "forwarder.breakerOpenFor",
                    "30s",
                    Duration.ofMillis(100),
                    MAX_DURATION,
                    "how long the circuit breaker stays open before one probe")
            .see("docs/forwarding.md#resilience4j-guards");
    public static final ConfigKey<Duration> FORWARDER_MAX_RETRY_AFTER = durationKey(
                    "forwarder.maxRetryAfter",
                    "5m",
                    Duration.ofSeconds(1),
                    Duration.ofDays(1),
                    "longest wait central can ask for (Retry-After, retryAfterMs); longer ones are clamped to it")
            .see("docs/forwarding.md#replies");
    public static final ConfigKey<Integer> FORWARDER_MAX_SERVER_ERRORS = intKey(
                    "forwarder.maxServerErrors",
                    5,
                    1,
                    1_000_000,
                    "times central fails on one event alone, or leaves out its receipt, before the event is parked")
            .see("docs/forwarding.md#how-a-step-looks-for-the-poison");

    private ForwarderKeys() {}
}
