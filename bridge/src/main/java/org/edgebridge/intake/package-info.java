/**
 * From a device's PUBLISH to an outbox row and its {@code stored} receipt ({@link org.edgebridge.intake.Intake}):
 * validation ({@link org.edgebridge.intake.CommandParser}, {@link org.edgebridge.intake.JsonLimits}), the bounded
 * write queue, room in the outbox ({@link org.edgebridge.intake.OutboxRoom}).
 *
 * <p>Threads: {@code accept} runs on the broker's one interceptor thread (parse, enqueue; a command it cannot queue is
 * looked up in the outbox); {@code intake-writer} (via {@code worker.Workers}) stores what is queued in one
 * transaction.
 *
 * <p>Guarantees: {@code stored} only after the commit; a device's sequence follows its publish order; a resend is
 * answered from the outbox; past the queue's bounds, the outbox's or the disk's, a new command is answered {@code
 * retry_later} ({@code intake_busy}, {@code outbox_full}) and not taken; past its own device's share of the outbox
 * ({@link org.edgebridge.intake.FullDevices}), {@code device_outbox_full}, and no other device is touched; a command
 * whose write fails on something in it is {@code rejected} / {@code unstorable} alone.
 */
@NullMarked
package org.edgebridge.intake;

import org.jspecify.annotations.NullMarked;
