package org.edgebridge.admin;

/**
 * Whether this box can take devices now: what {@code GET /health/ready} answers (200 or 503) and {@code /api/status}
 * shows as {@code ready}, for a load balancer's health check (docs/scale-out.md). Central's answers play no part: when
 * central is down every box is equally affected, and each still takes custody of commands.
 *
 * @param status {@code ready} or {@code not_ready}
 * @param listeners the broker runs with its MQTT listeners up
 * @param outboxWritable the outbox takes writes ({@link StatusReport#outboxWritable()})
 * @param forwarderRunning the forwarder's loop runs (it stops when the bridge stops)
 * @param accepting the bridge takes new commands (false from the first moment of a stop: the drain)
 * @param workersAlive no worker thread died
 */
public record Readiness(
        String status,
        boolean ready,
        boolean listeners,
        boolean outboxWritable,
        boolean forwarderRunning,
        boolean accepting,
        boolean workersAlive) {

    static Readiness of(
            boolean listeners,
            boolean outboxWritable,
            boolean forwarderRunning,
            boolean accepting,
            boolean workersAlive) {
        boolean ready = listeners && outboxWritable && forwarderRunning && accepting && workersAlive;
        return new Readiness(
                ready ? "ready" : "not_ready",
                ready,
                listeners,
                outboxWritable,
                forwarderRunning,
                accepting,
                workersAlive);
    }
}
