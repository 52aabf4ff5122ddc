package org.edgebridge.intake;

import java.time.Duration;
import org.edgebridge.outbox.DeviceShare;

/**
 * What the intake is told, in the three parts that read it: the parser, the queue in front of the outbox writer, and
 * the room the outbox has for new commands.
 */
public record IntakeSettings(Parsing parsing, Queue queue, Room room) {

    /**
     * What a command must be to be taken ({@link CommandParser}).
     *
     * @param maxPayloadBytes largest command payload accepted
     * @param jsonLimits how deep and long a payload's JSON may be before it is rejected json_limit_exceeded
     * @param expiry how long commands of each type stay worth applying ({@code intake.expiryByType})
     * @param maxExpiresIn latest {@code expiresAt} a command may carry, after its arrival ({@code intake.maxExpiresIn})
     */
    public record Parsing(int maxPayloadBytes, JsonLimits jsonLimits, ExpiryRules expiry, Duration maxExpiresIn) {}

    /**
     * Commands waiting for the outbox writer.
     *
     * @param maxBatch most commands committed in one outbox transaction
     * @param capacity commands waiting before intake answers retry_later
     * @param maxBytes payload bytes waiting before intake answers retry_later / intake_busy
     */
    public record Queue(int maxBatch, int capacity, long maxBytes) {}

    /**
     * The outbox's room for new commands ({@link OutboxRoom}).
     *
     * @param maxPending open (not final) commands the outbox may hold before intake answers outbox_full
     * @param minFreeDiskBytes free disk below which intake answers outbox_full
     * @param fullRetryAfter what a device is told to wait when the outbox is full
     * @param deviceShare how much of the outbox one device may hold ({@code outbox.maxPendingPerDevice},
     *     {@code outbox.maxPendingBytesPerDevice}); past it that device's new commands get retry_later /
     *     device_outbox_full
     */
    public record Room(long maxPending, long minFreeDiskBytes, Duration fullRetryAfter, DeviceShare deviceShare) {}
}
