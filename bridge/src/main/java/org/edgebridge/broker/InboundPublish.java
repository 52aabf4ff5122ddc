package org.edgebridge.broker;

import java.time.Instant;

/** One PUBLISH from a device on its own command topic, copied out of the broker's buffers. */
public record InboundPublish(String clientId, String topic, String type, byte[] payload, Instant receivedAt) {}
