/**
 * The admin HTTP side (docs/protocol.md §3): the status page, {@code /api/status}, the outbox, devices and parked
 * APIs, forwarder pause/resume, Prometheus {@code /metrics} and the health checks ({@link
 * org.edgebridge.admin.AdminServer}).
 *
 * <p>It reads the parts through {@code broker.BrokerView}, {@code intake.IntakeView} and {@code
 * forward.ForwarderControl} and the outbox's reads; nothing but the composition root depends on it, so the bridge
 * runs the same with it broken.
 *
 * <p>Threads: Jetty's pool, owned by Javalin; {@code activity-sampler} ({@link org.edgebridge.admin.ActivityHistory}).
 * Handlers only read status records and call thread-safe methods.
 *
 * <p>Guarantees: binds {@code admin.host} (loopback by default); every POST needs {@code admin.token}, and so does
 * every read but the page's HTML and {@code /health/*} on a host that is not loopback; every error is JSON.
 */
@NullMarked
package org.edgebridge.admin;

import org.jspecify.annotations.NullMarked;
