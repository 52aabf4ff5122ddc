/**
 * Receipts to devices (docs/protocol.md §1.5): the JSON ({@link org.edgebridge.receipt.Receipt}), handed to the broker
 * through {@code broker.DevicePublisher} ({@link org.edgebridge.receipt.ReceiptSender}), and their latency and
 * status figures ({@link org.edgebridge.receipt.ReceiptFigures}).
 *
 * <p>Threads: none of its own; called by the intake writer and the forwarder.
 *
 * <p>Guarantees: a receipt is sent only after the outbox transaction it reports has committed; every receipt carries
 * {@code payloadSha256}; codes from central cannot grow the metrics without bound.
 */
@NullMarked
package org.edgebridge.receipt;

import org.jspecify.annotations.NullMarked;
