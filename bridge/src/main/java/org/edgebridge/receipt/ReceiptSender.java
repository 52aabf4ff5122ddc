package org.edgebridge.receipt;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.edgebridge.broker.DevicePublisher;
import org.edgebridge.code.ReceiptCode;
import org.edgebridge.outbox.CommandRecord;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds receipts and hands them to the broker. Thread-safe; called by the intake writer and the forwarder,
 * always after the outbox transaction that a receipt reports has committed.
 */
public final class ReceiptSender {
    private static final Logger LOG = LoggerFactory.getLogger(ReceiptSender.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final DevicePublisher publisher;
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    /** Per-device locks (striped) that keep one command's receipts in state order. */
    private final Object[] order = new Object[64];

    private final ReceiptFigures figures;

    public ReceiptSender(DevicePublisher publisher, ReceiptFigures figures) {
        this.publisher = publisher;
        this.figures = figures;
        for (int i = 0; i < order.length; i++) {
            order[i] = new Object();
        }
    }

    /**
     * Publishes the receipt a stored command has in the outbox, in state order: never a {@code stored} after its
     * final. Every receipt of a stored command goes through here; {@code current} is read under the device's lock,
     * so a final published before it was committed before it, and {@code current} sees it.
     *
     * @param current the command as the outbox holds it now (a resend reads it again here; a final just committed
     *     passes itself)
     */
    public boolean sendInOrder(String clientId, Supplier<CommandRecord> current, boolean replayed) {
        synchronized (order[Math.floorMod(clientId.hashCode(), order.length)]) {
            CommandRecord record = current.get();
            Receipt receipt = latest(record, replayed);
            boolean sent = send(clientId, receipt);
            if (sent && !replayed) {
                measure(receipt, record.receivedAt());
            }
            return sent;
        }
    }

    /**
     * Publishes the final receipts of these commands, just committed (or, {@code again}, committed before and maybe
     * published already), each in state order ({@link #sendInOrder}).
     *
     * A device whose receipt the broker refused (its queue is full: it does not read) is skipped for the rest of the
     * list: its receipts stay unpublished in the outbox, published again later or answered on its resend.
     *
     * @return the ids of those handed to the broker, for the caller to mark published in the outbox
     */
    public List<Long> sendFinals(List<CommandRecord> finals, boolean again) {
        List<Long> sent = new ArrayList<>(finals.size());
        Set<String> refusedNow = new HashSet<>();
        for (CommandRecord r : finals) {
            if (refusedNow.contains(r.clientId())) {
                continue;
            }
            if (sendInOrder(r.clientId(), () -> r, again)) {
                sent.add(r.id());
            } else {
                refusedNow.add(r.clientId());
            }
        }
        return sent;
    }

    /** Publishes a stored command's first receipt ({@code stored} from the intake), measured from its PUBLISH. */
    public boolean sendFirst(String clientId, Receipt receipt, Instant receivedAt) {
        boolean sent = send(clientId, receipt);
        if (sent) {
            measure(receipt, receivedAt);
        }
        return sent;
    }

    private void measure(Receipt receipt, Instant receivedAt) {
        if (receipt.isFinal()) {
            figures.finalSent(receivedAt, receipt.status(), receipt.code());
        } else if (receipt.status().equals("stored")) {
            figures.stored(receivedAt);
        }
    }

    /** The receipt the outbox holds for a stored command now: {@code stored}, or its final receipt. */
    public static Receipt latest(CommandRecord r, boolean replayed) {
        if (r.state().isFinal()) {
            return new Receipt(
                    r.commandId(),
                    r.state().dbName(),
                    true,
                    r.code(),
                    r.message(),
                    r.resultJson(),
                    r.sequence(),
                    r.payloadSha256(),
                    replayed,
                    r.topic(),
                    null);
        }
        return new Receipt(
                r.commandId(),
                "stored",
                false,
                null,
                null,
                null,
                r.sequence(),
                r.payloadSha256(),
                replayed,
                r.topic(),
                null);
    }

    /** A bridge-side rejection of a command that was not stored. */
    public static Receipt rejected(
            @Nullable String commandId, ReceiptCode code, String message, String sha, String topic) {
        return new Receipt(commandId, "rejected", true, code.wire(), message, null, null, sha, false, topic, null);
    }

    /** The bridge did not take custody; the device must send the command again after {@code retryAfterMs}. */
    public static Receipt retryLater(
            String commandId, ReceiptCode code, String message, String sha, String topic, long retryAfterMs) {
        return new Receipt(
                commandId, "retry_later", false, code.wire(), message, null, null, sha, false, topic, retryAfterMs);
    }

    /** @return false if the broker could not take the receipt now */
    public boolean send(String clientId, Receipt receipt) {
        byte[] json;
        try {
            json = JSON.writeValueAsBytes(receipt);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a receipt could not be written as JSON", e);
        }
        boolean ok = publisher.publishReceipt(clientId, json);
        (ok ? sent : refused).incrementAndGet();
        if (!ok) {
            LOG.debug("broker refused receipt {} for {}", receipt.status(), clientId);
        }
        return ok;
    }

    public long sentCount() {
        return sent.get();
    }

    public long refusedCount() {
        return refused.get();
    }
}
