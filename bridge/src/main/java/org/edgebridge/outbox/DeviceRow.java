package org.edgebridge.outbox;

import java.time.Instant;

/** A device as the outbox knows it: its last sequence, when it was first and last heard of, its open commands. */
public record DeviceRow(
        String clientId, long lastSequence, Instant firstSeenAt, Instant lastSeenAt, long openCommands) {}
