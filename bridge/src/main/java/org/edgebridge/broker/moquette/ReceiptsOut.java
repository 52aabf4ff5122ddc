package org.edgebridge.broker.moquette;

import io.moquette.broker.MoquetteInternals;
import io.moquette.broker.RoutingResults;
import io.moquette.broker.Server;
import org.edgebridge.broker.ReceiptQueues;
import org.edgebridge.broker.RefusalLog;
import org.edgebridge.broker.Topics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moquette 0.17 limit answered: past the 10 receipts in flight to a device it queues every further one in its store,
 * without limit (a device that never read grew the store by 144 MB; {@code ReceiptQueueBoundsIT}). Receipts go to
 * Moquette through here, and only while the device's queue is under its bound ({@link ReceiptQueues}); a receipt left
 * out is answered again when the device resends its command.
 *
 * <p>Thread-safe: called from the intake and forwarder threads; the hand-over's completion runs on a session loop.
 */
final class ReceiptsOut {
    private static final Logger LOG = LoggerFactory.getLogger(ReceiptsOut.class);
    private static final String PUBLISHER_ID = "edge-bridge";

    private final Topics topics;
    private final RefusalLog refusals;
    private final ReceiptQueues queues;

    ReceiptsOut(Topics topics, RefusalLog refusals, ReceiptQueues queues) {
        this.topics = topics;
        this.refusals = refusals;
        this.queues = queues;
    }

    /** @return true if Moquette took the receipt for the device */
    boolean publish(Server s, String clientId, byte[] json) {
        queues.refreshIfDue(c -> queuedFor(s, c));
        if (!queues.admit(clientId, json.length, queuedFor(s, clientId))) {
            refusals.info(
                    "receipt-queue",
                    clientId,
                    "left out a receipt to " + RefusalLog.quote(clientId) + ": its queue is full "
                            + "(mqtt.maxQueuedReceipts, mqtt.maxQueuedReceiptBytes: a device that does not read); "
                            + "its resend gets it");
            return false;
        }
        try {
            RoutingResults routed =
                    s.internalPublish(ReceiptMessage.of(topics.receiptTopic(clientId), json), PUBLISHER_ID);
            routed.completableFuture().whenComplete((ok, error) -> queues.arrived(clientId, queuedFor(s, clientId)));
            return routed.isAllSuccess();
        } catch (RuntimeException e) {
            queues.arrived(clientId, queuedFor(s, clientId));
            LOG.debug("receipt to {} not routed: {}", clientId, e.toString());
            return false;
        }
    }

    ReceiptQueues queues() {
        return queues;
    }

    /** The queues, every device's read again from the broker if a second has passed (for the status). */
    ReceiptQueues queuesNow(Server s) {
        queues.refreshIfDue(c -> queuedFor(s, c));
        return queues;
    }

    /** Receipts Moquette holds queued for the device; never throws (0 if they cannot be read). */
    private static int queuedFor(Server s, String clientId) {
        try {
            return MoquetteInternals.queuedFor(s, clientId);
        } catch (RuntimeException e) {
            LOG.warn("cannot read the queue of {}: {}", RefusalLog.quote(clientId), e.toString());
            return 0;
        }
    }
}
