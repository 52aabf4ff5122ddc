package org.edgebridge.intake;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.edgebridge.broker.InboundPublish;
import org.edgebridge.code.ReceiptCode;
import org.edgebridge.hook.TestHook;
import org.edgebridge.lifecycle.Component;
import org.edgebridge.lifecycle.Once;
import org.edgebridge.outbox.DeviceShare;
import org.edgebridge.outbox.NewCommand;
import org.edgebridge.outbox.IntakeOutbox;
import org.edgebridge.outbox.StoreResult;
import org.edgebridge.receipt.ReceiptSender;
import org.edgebridge.trace.CommandTrace;
import org.edgebridge.worker.Workers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns device PUBLISHes into outbox rows and answers each with a receipt, after the commit.
 *
 * <p>Threads: {@link #accept} runs on the broker's single interceptor thread (after Moquette's PUBACK). It
 * validates and queues (a command it cannot queue is looked up in the outbox, so that a resend is answered:
 * {@link ResendAnswers}); one writer thread, "intake-writer", owned by this class, drains the queue and stores
 * everything waiting in one transaction (group commit: a receipt waits for at most one commit of the commands queued
 * before it). Both are FIFO, so a device's sequence follows its publish order.
 */
public final class Intake implements Component, IntakeView, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Intake.class);
    /** What a device is told to wait when the bridge cannot take custody now. */
    static final long RETRY_AFTER_MS = 5_000;

    private final IntakeOutbox outbox;
    private final ReceiptSender receipts;
    private final CommandParser parser;
    private final IntakeSettings settings;
    private final BlockingQueue<NewCommand> queue;
    /** Payload bytes of the commands in {@link #queue} and in the batch being written. */
    private final AtomicLong queuedBytes = new AtomicLong();
    private final Runnable onStored;
    private final AtomicLong storedUpTo;
    private final IntakeStats stats = new IntakeStats();
    private final OutboxRoom room;
    private final StoreReceipts storeReceipts;
    private final ResendAnswers resends;
    private final FullDevices fullDevices = new FullDevices();
    private final Thread writer;
    private volatile boolean accepting = true;
    private final WriteFailures writeFailures = new WriteFailures();
    private volatile boolean running = true;

    /**
     * @param onStored called after new rows were committed and their {@code stored} receipts handed out
     */
    public Intake(IntakeOutbox outbox, ReceiptSender receipts, IntakeSettings settings, Runnable onStored, Workers threads) {
        this.outbox = outbox;
        this.receipts = receipts;
        this.parser = new CommandParser(settings.maxPayloadBytes(), settings.jsonLimits(), settings.expiry(),
                settings.maxExpiresIn());
        this.settings = settings;
        this.queue = new ArrayBlockingQueue<>(settings.queueCapacity());
        this.onStored = onStored;
        this.storedUpTo = new AtomicLong(outbox.maxRowId());
        this.room = new OutboxRoom(outbox, settings);
        this.storeReceipts = new StoreReceipts(settings, stats, room);
        this.resends = new ResendAnswers(outbox, receipts, storeReceipts, stats);
        this.writer = threads.thread("intake-writer", this::writeLoop);
    }

    private final Once once = new Once();

    @Override
    public void start() {
        if (once.start()) {
            writer.start();
        }
    }

    /**
     * The highest outbox row id whose {@code stored} receipt has been handed out. The forwarder claims only
     * up to it, so a device always sees {@code stored} before a final receipt.
     */
    public long storedUpTo() {
        return storedUpTo.get();
    }

    public IntakeStats stats() {
        return stats;
    }

    /** Payload bytes waiting for the writer now (queued, or in the batch being written). */
    public long queuedBytes() {
        return queuedBytes.get();
    }

    /** Called on the broker's interceptor thread for each PUBLISH on a device's own command topic. */
    public void accept(InboundPublish publish) {
        stats.received.incrementAndGet();
        CommandParser.Parsed parsed = parser.parse(publish);
        if (parsed instanceof CommandParser.Invalid invalid) {
            stats.countRejected(invalid.code());
            receipts.send(publish.clientId(), ReceiptSender.rejected(invalid.commandId(), invalid.code(),
                    invalid.message(), invalid.payloadSha256(), publish.topic()));
            return;
        }
        NewCommand command = ((CommandParser.Valid) parsed).command();
        if (!accepting) {
            if (!resends.answered(command)) {
                refuse(command, ReceiptCode.SHUTTING_DOWN, "the bridge is shutting down; send the command again later");
            }
        } else if (!offer(command)) {
            if (!resends.answered(command)) {
                refuse(command, ReceiptCode.INTAKE_BUSY, "the bridge's intake queue is full; send the command again later");
            }
        }
    }

    /**
     * Queues a command if the queue has room in commands (intake.queueCapacity) and in payload bytes
     * (intake.maxQueuedBytes; a single command is always taken into an empty queue).
     */
    private boolean offer(NewCommand command) {
        long size = command.payload().length;
        long before = queuedBytes.getAndAdd(size);
        if ((before > 0 && before + size > settings.maxQueuedBytes()) || !queue.offer(command)) {
            queuedBytes.addAndGet(-size);
            return false;
        }
        return true;
    }

    private void refuse(NewCommand c, ReceiptCode code, String message) {
        stats.retryLater.incrementAndGet();
        receipts.send(c.clientId(), ReceiptSender.retryLater(c.commandId(), code, message, c.payloadSha256(), c.topic(),
                RETRY_AFTER_MS));
    }

    private void writeLoop() {
        List<NewCommand> batch = new ArrayList<>(settings.maxBatch());
        while (running || !queue.isEmpty()) {
            try {
                NewCommand first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                try {
                    writeBatch(batch);
                } finally {
                    queuedBytes.addAndGet(-batch.stream().mapToLong(c -> c.payload().length).sum());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                LOG.error("intake writer failed on a batch of {}; it goes on", batch.size(), e);
            } finally {
                batch.clear();
            }
        }
    }

    /** Adds what is queued now, up to intake.maxBatch: called once the outbox's write turn has come. */
    private List<NewCommand> topUp(List<NewCommand> batch) {
        queue.drainTo(batch, settings.maxBatch() - batch.size());
        return batch;
    }

    private void writeBatch(List<NewCommand> batch) {
        List<StoreResult> results;
        TestHook.BEFORE_INTAKE_COMMIT.enter();
        try {
            results = outbox.store(() -> topUp(batch), room.forNextBatch(), settings.deviceShare());
        } catch (RuntimeException e) {
            writeFailures.failed(batch.size(), e);
            stats.storeFailures.incrementAndGet();
            for (NewCommand c : batch) {
                refuse(c, ReceiptCode.OUTBOX_UNAVAILABLE, "the bridge could not write its outbox; send the command again later");
            }
            return;
        }
        if (results.stream().anyMatch(r -> r instanceof StoreResult.Stored)) {
            writeFailures.storedAgain();
        }
        TestHook.AFTER_INTAKE_COMMIT.enter();
        long committedAt = CommandTrace.now();
        long maxId = storedUpTo.get();
        for (StoreResult result : results) {
            if (result instanceof StoreResult.AlreadyStored again) {
                stats.replayed.incrementAndGet();
                resends.replay(again.record());
                continue;
            }
            if (result instanceof StoreResult.DeviceFull full) {
                fullDevices.refused(full.command().clientId(), full.openCommands(), full.openBytes());
            }
            if (result instanceof StoreResult.Stored) {
                fullDevices.stored(result.command().clientId());
                receipts.sendFirst(result.command().clientId(), storeReceipts.receiptFor(result), result.command().receivedAt());
            } else {
                receipts.send(result.command().clientId(), storeReceipts.receiptFor(result));
            }
            if (result instanceof StoreResult.Stored stored) {
                maxId = Math.max(maxId, stored.record().id());
                CommandTrace.stored(stored.record().id(), result.command().commandId(), committedAt);
            }
        }
        storedUpTo.set(maxId);
        onStored.run();
    }

    /** The error of the last outbox write while writes fail ({@link WriteFailures#current()}). */
    @Override
    public Optional<String> writeFailure() {
        return writeFailures.current();
    }

    @Override
    public List<DeviceAtShare> devicesAtShare() {
        return fullDevices.now();
    }

    @Override
    public long deviceShareRefusals() {
        return fullDevices.refusals();
    }

    @Override
    public DeviceShare deviceShare() {
        return settings.deviceShare();
    }

    @Override
    public long maxPending() {
        return settings.maxPending();
    }

    /** True while new commands are refused because the outbox is at maxPending or the disk is below its floor. */
    public boolean isFull() {
        return room.isFull();
    }

    /** True while the disk is below {@code outbox.minFreeDisk}. */
    public boolean isLowOnDisk() {
        return room.isLowOnDisk();
    }

    @Override
    public boolean isAccepting() {
        return accepting;
    }

    /** Stops taking commands: every later one is answered retry_later. What is queued is still written. */
    public void stopAccepting() {
        accepting = false;
    }

    /** {@link #close(java.time.Duration)} with 30 s, for try-with-resources. */
    @Override
    public void close() {
        close(java.time.Duration.ofSeconds(30));
    }

    /** Writes what is queued, waiting at most {@code budget}, then stops the writer thread. */
    @Override
    public void close(java.time.Duration budget) {
        accepting = false;
        running = false;
        if (!once.close() || !once.started()) {
            return;
        }
        try {
            writer.join(Math.max(1, budget.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (writer.isAlive()) {
            LOG.warn("intake writer did not finish within the shutdown budget; {} queued commands were not stored "
                    + "(their devices had no stored receipt and resend them)", queue.size());
            writer.interrupt();
        }
    }
}
