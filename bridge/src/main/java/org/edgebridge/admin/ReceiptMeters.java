package org.edgebridge.admin;

import static org.edgebridge.admin.Counters.counter;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.edgebridge.receipt.ReceiptSender;

/** The receipts' meters ({@code edgebridge_receipts_*}): handed to the broker, or refused by its full queues. */
final class ReceiptMeters {
    private ReceiptMeters() {}

    static void register(PrometheusMeterRegistry registry, ReceiptSender receipts) {
        counter(
                registry,
                "edgebridge.receipts.sent",
                receipts,
                ReceiptSender::sentCount,
                "receipts handed to the broker");
        counter(
                registry,
                "edgebridge.receipts.refused",
                receipts,
                ReceiptSender::refusedCount,
                "receipts the broker could not take (its queues full); devices get them again when they resend");
    }
}
