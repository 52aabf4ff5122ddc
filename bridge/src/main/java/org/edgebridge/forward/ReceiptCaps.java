package org.edgebridge.forward;

/**
 * The largest {@code result} (as JSON), {@code message} and {@code code} (UTF-8 bytes) a receipt of central may carry
 * to be believed (docs/protocol.md §2.3): what goes into the outbox and to the device.
 */
public record ReceiptCaps(int maxResultBytes, int maxMessageBytes, int maxCodeBytes) {}
