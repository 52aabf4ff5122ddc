package org.edgebridge.outbox;

/**
 * How many bytes one event takes in a request to central, at most, from what a claim knows before it reads the
 * payload. The forwarder gives it ({@code forward.IngestRequest}), so that {@code forwarder.maxBytes} bounds the
 * serialized request, not just its payloads.
 */
@FunctionalInterface
public interface WireSize {
    long bytes(String clientId, String commandId, String type, String topic, int payloadBytes);
}
