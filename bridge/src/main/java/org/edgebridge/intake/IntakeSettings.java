package org.edgebridge.intake;

import java.time.Duration;
import org.edgebridge.outbox.DeviceShare;

/**
 * @param maxPayloadBytes largest command payload accepted
 * @param maxBatch most commands committed in one outbox transaction
 * @param queueCapacity commands waiting for the writer before intake answers retry_later
 * @param maxPending open (not final) commands the outbox may hold before intake answers outbox_full
 * @param minFreeDiskBytes free disk below which intake answers outbox_full
 * @param fullRetryAfter what a device is told to wait when the outbox is full
 * @param maxQueuedBytes payload bytes waiting for the writer before intake answers retry_later / intake_busy
 * @param jsonLimits how deep and long a payload's JSON may be before it is rejected json_limit_exceeded
 * @param expiry how long commands of each type stay worth applying ({@code intake.expiryByType})
 * @param deviceShare how much of the outbox one device may hold ({@code outbox.maxPendingPerDevice},
 *     {@code outbox.maxPendingBytesPerDevice}); past it that device's new commands get retry_later / device_outbox_full
 * @param maxExpiresIn latest {@code expiresAt} a command may carry, after its arrival ({@code intake.maxExpiresIn})
 */
public record IntakeSettings(
        int maxPayloadBytes,
        int maxBatch,
        int queueCapacity,
        long maxPending,
        long minFreeDiskBytes,
        Duration fullRetryAfter,
        long maxQueuedBytes,
        JsonLimits jsonLimits,
        ExpiryRules expiry,
        Duration maxExpiresIn,
        DeviceShare deviceShare) {}
