package org.edgebridge.intake;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.edgebridge.broker.InboundCommands;
import org.edgebridge.broker.InboundPublish;
import org.edgebridge.code.ReceiptCode;
import org.edgebridge.hook.TestHook;
import org.edgebridge.lifecycle.Component;
import org.edgebridge.lifecycle.Once;
import org.edgebridge.outbox.DeviceShare;
import org.edgebridge.outbox.IntakeOutbox;
import org.edgebridge.outbox.NewCommand;
import org.edgebridge.outbox.StoreResult;
import org.edgebridge.receipt.ReceiptSender;
import org.edgebridge.trace.CommandTrace;
import org.edgebridge.worker.Workers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns device PUBLISHes into outbox rows and answers each with a receipt, after the commit.
 *
 * <p>Threads: {@link #accept(InboundPublish, InboundCommands.Answer)} runs on a connection's event loop, before the
 * PUBACK (which waits for the command's {@link InboundCommands.Answer}); {@link #accept(InboundPublish)} on the
 * broker's single interceptor thread, after Moquette's PUBACK (a Last Will; every command with {@code
 * mqtt.pubackAfterCommit=false}). Both validate and queue. A command that cannot be queued is looked up in the outbox,
 * so that a resend is answered ({@link ResendAnswers}): on the calling thread from the interceptor, on "intake-answers"
 * (owned here) from an event loop, which must not wait for the disk. One writer thread, "intake-writer", owned by this
 * class, drains the queue and stores everything waiting in one transaction (group commit: a receipt, and a PUBACK,
 * waits for at most one commit of the commands queued before it), then answers each command of the batch. The queue is
 * FIFO and a device's commands come from one thread, so a device's sequence follows its publish order.
 */
public final class Intake implements Component, IntakeView, AutoCloseable, InboundCommands {
    private static final Logger LOG = LoggerFactory.getLogger(Intake.class);
    /** What a device is told to wait when the bridge cannot take custody now. */
    static final long RETRY_AFTER_MS = 5_000;

    private final IntakeOutbox outbox;
    private final ReceiptSender receipts;
    private final CommandParser parser;
    private final IntakeSettings.Queue settings;
    private final IntakeSettings.Room roomSettings;
    private final BlockingQueue<Queued> queue;
    /**
     * Looks up commands that could not be queued, off the event loops ({@code intake.queueCapacity} of them at most).
     */
    private final ThreadPoolExecutor answers;
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
    public Intake(
            IntakeOutbox outbox, ReceiptSender receipts, IntakeSettings settings, Runnable onStored, Workers threads) {
        this.outbox = outbox;
        this.receipts = receipts;
        IntakeSettings.Parsing parsing = settings.parsing();
        this.parser = new CommandParser(
                parsing.maxPayloadBytes(), parsing.jsonLimits(), parsing.expiry(), parsing.maxExpiresIn());
        this.settings = settings.queue();
        this.roomSettings = settings.room();
        this.queue = new ArrayBlockingQueue<>(settings.queue().capacity());
        this.onStored = onStored;
        this.storedUpTo = new AtomicLong(outbox.maxRowId());
        this.room = new OutboxRoom(outbox, settings.room());
        this.storeReceipts = new StoreReceipts(settings.room(), stats, room);
        this.resends = new ResendAnswers(outbox, receipts, storeReceipts, stats);
        this.writer = threads.thread("intake-writer", this::writeLoop);
        this.answers = new ThreadPoolExecutor(
                1,
                1,
                0,
                TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(settings.queue().capacity()),
                r -> threads.thread("intake-answers", r));
    }

    /** A queued command and who waits for what became of it. */
    private record Queued(NewCommand command, InboundCommands.Answer answer) {}

    /** For commands that were PUBACKed before they came (Moquette's interceptor). */
    private static final InboundCommands.Answer NOBODY_WAITS = new InboundCommands.Answer() {
        @Override
        public void decided() {}

        @Override
        public void undecided() {}
    };

    private final Once once = new Once();

    @Override
    public void start() {
        if (once.start()) {
            writer.start();
            answers.prestartCoreThread();
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

    /**
     * Commands queued for the writer and commands waiting to be looked up now (the broker's back-pressure counts them).
     */
    @Override
    public int waiting() {
        return queue.size() + answers.getQueue().size();
    }

    /** Called on the broker's interceptor thread for each PUBLISH on a device's own command topic, already PUBACKed. */
    @Override
    public void accept(InboundPublish publish) {
        accept(publish, NOBODY_WAITS, true);
    }

    /**
     * Called on a connection's event loop for a PUBLISH on the device's own command topic whose PUBACK waits for
     * {@code answer}: {@link InboundCommands.Answer#decided()} once the command is committed or its receipt (rejected,
     * retry_later) handed out. Never reads the outbox on the calling thread.
     */
    @Override
    public void accept(InboundPublish publish, InboundCommands.Answer answer) {
        accept(publish, answer, false);
    }

    private void accept(InboundPublish publish, InboundCommands.Answer answer, boolean mayReadOutbox) {
        stats.received.incrementAndGet();
        CommandParser.Parsed parsed = parser.parse(publish);
        if (parsed instanceof CommandParser.Invalid invalid) {
            stats.countRejected(invalid.code());
            receipts.send(
                    publish.clientId(),
                    ReceiptSender.rejected(
                            invalid.commandId(),
                            invalid.code(),
                            invalid.message(),
                            invalid.payloadSha256(),
                            publish.topic()));
            answer.decided();
            return;
        }
        NewCommand command = ((CommandParser.Valid) parsed).command();
        if (accepting && offer(new Queued(command, answer))) {
            return;
        }
        boolean stopping = !accepting;
        Runnable lookUp = () -> {
            try {
                answerUnqueued(command, stopping);
            } finally {
                answer.decided();
            }
        };
        if (mayReadOutbox) {
            lookUp.run();
            return;
        }
        try {
            answers.execute(() -> {
                try {
                    lookUp.run();
                } catch (RuntimeException e) {
                    LOG.error("answering a command that could not be queued failed", e);
                }
            });
        } catch (RejectedExecutionException e) { // the look-ups are as far behind as the queue: refuse without one
            try {
                refuseUnqueued(command, stopping);
            } finally {
                answer.decided();
            }
        }
    }

    /** A command that could not be queued: answered from the outbox if it holds it (a resend), else retry_later. */
    private void answerUnqueued(NewCommand command, boolean stopping) {
        if (!resends.answered(command)) {
            refuseUnqueued(command, stopping);
        }
    }

    private void refuseUnqueued(NewCommand command, boolean stopping) {
        if (stopping) {
            refuse(command, ReceiptCode.SHUTTING_DOWN, "the bridge is shutting down; send the command again later");
        } else {
            refuse(command, ReceiptCode.INTAKE_BUSY, "the bridge's intake queue is full; send the command again later");
        }
    }

    /**
     * Queues a command if the queue has room in commands (intake.queueCapacity) and in payload bytes
     * (intake.maxQueuedBytes; a single command is always taken into an empty queue).
     */
    private boolean offer(Queued queued) {
        long size = queued.command().payload().length;
        long before = queuedBytes.getAndAdd(size);
        if ((before > 0 && before + size > settings.maxBytes()) || !queue.offer(queued)) {
            queuedBytes.addAndGet(-size);
            return false;
        }
        return true;
    }

    private void refuse(NewCommand c, ReceiptCode code, String message) {
        stats.retryLater.incrementAndGet();
        receipts.send(
                c.clientId(),
                ReceiptSender.retryLater(c.commandId(), code, message, c.payloadSha256(), c.topic(), RETRY_AFTER_MS));
    }

    private void writeLoop() {
        List<Queued> batch = new ArrayList<>(settings.maxBatch());
        while (running || !queue.isEmpty()) {
            boolean decided = false;
            try {
                Queued first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                try {
                    writeBatch(batch);
                    decided = true;
                } finally {
                    queuedBytes.addAndGet(-batch.stream()
                            .mapToLong(q -> q.command().payload().length)
                            .sum());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                LOG.error(
                        "intake writer failed on a batch of {}; it goes on (their devices get no PUBACK and send "
                                + "them again)",
                        batch.size(),
                        e);
            } finally {
                answer(batch, decided);
                batch.clear();
            }
        }
    }

    /** Tells whoever waits for the commands of a batch (their PUBACKs) what became of them. */
    private static void answer(List<Queued> batch, boolean decided) {
        for (Queued q : batch) {
            try {
                if (decided) {
                    q.answer().decided();
                } else {
                    q.answer().undecided();
                }
            } catch (RuntimeException e) {
                LOG.error("answering a command's PUBACK failed", e);
            }
        }
    }

    /** Adds what is queued now, up to intake.maxBatch: called once the outbox's write turn has come. */
    private List<NewCommand> topUp(List<Queued> batch) {
        queue.drainTo(batch, settings.maxBatch() - batch.size());
        List<NewCommand> commands = new ArrayList<>(batch.size());
        for (Queued q : batch) {
            commands.add(q.command());
        }
        return commands;
    }

    private void writeBatch(List<Queued> batch) {
        List<StoreResult> results;
        TestHook.BEFORE_INTAKE_COMMIT.enter();
        try {
            results = outbox.store(() -> topUp(batch), room.forNextBatch(), roomSettings.deviceShare());
        } catch (RuntimeException e) {
            writeFailures.failed(batch.size(), e);
            stats.storeFailures.incrementAndGet();
            for (Queued q : batch) {
                refuse(
                        q.command(),
                        ReceiptCode.OUTBOX_UNAVAILABLE,
                        "the bridge could not write its outbox; send the command again later");
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
                receipts.sendFirst(
                        result.command().clientId(),
                        storeReceipts.receiptFor(result),
                        result.command().receivedAt());
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
        return roomSettings.deviceShare();
    }

    @Override
    public long maxPending() {
        return roomSettings.maxPending();
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
        close(Duration.ofSeconds(30));
    }

    /** Writes what is queued, waiting at most {@code budget}, then stops the writer thread. */
    @Override
    public void close(Duration budget) {
        accepting = false;
        running = false;
        answers.shutdown(); // what waits for a look-up is still answered
        if (!once.close() || !once.started()) {
            return;
        }
        try {
            writer.join(Math.max(1, budget.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (writer.isAlive()) {
            LOG.warn(
                    "intake writer did not finish within the shutdown budget; {} queued commands were not stored "
                            + "(their devices had no stored receipt and resend them)",
                    queue.size());
            writer.interrupt();
        }
        List<Queued> left = new ArrayList<>();
        queue.drainTo(left);
        answer(left, false); // never stored: no PUBACK
    }
}
