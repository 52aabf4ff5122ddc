package org.edgebridge.outbox;

import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.Jdbi;
import org.jspecify.annotations.Nullable;

/**
 * The outbox's one writer: a thread, {@code outbox-writer}, that owns the write connection and runs every write of the
 * bridge (the intake's commands, the forwarder's claims and settles, the marks of published receipts, the admin's
 * decisions, the purge) as requests. It takes whatever requests wait, runs them in one transaction, each inside a
 * savepoint of its own (a request that fails is rolled back alone and fails alone), commits once, and only then
 * completes each request: one fsync for the intake's commands and the forwarder's settle that met, no lock handed
 * from thread to thread. Callers block until their request is committed, so every write method of the
 * outbox keeps its meaning: when it returns, what it wrote survives a power cut.
 *
 * <p>Every statement on the connection is kept and bound by name ({@link NamedStatements}, handed to each request).
 * A failed commit rolls back the whole transaction, fails every request in it and closes the
 * connection; the next transaction opens a new one. The thread is started by the first request and stopped by
 * {@link #close}; a request after that starts it again.
 */
final class OutboxWriter {
    /** Most requests in one transaction: a bound on what one failed commit fails. */
    static final int MAX_REQUESTS_PER_TRANSACTION = 256;

    /** A write on the writer's connection, inside its transaction, on the connection's kept statements. */
    @FunctionalInterface
    interface Work<R> {
        R run(NamedStatements sql) throws SQLException;
    }

    private record Request<R>(Work<R> work, CompletableFuture<R> done) {
        void run(NamedStatements sql, List<Runnable> completions) throws SQLException {
            R result = work.run(sql);
            completions.add(() -> done.complete(result));
        }
    }

    private final LinkedBlockingQueue<Request<?>> requests = new LinkedBlockingQueue<>();
    /** Most PUBACK marks waiting for a transaction: a writer that cannot commit does not collect them without end. */
    static final int MAX_WAITING_ACKS = 10_000;

    /** A device's PUBACK of the final receipt of a command ({@link #markAcked}). */
    record Acked(String clientId, String commandId, long at) {}

    /** Rows whose final receipts were handed to the broker by one call, and when ({@link #markPublished}). */
    record Published(List<Long> ids, long at) {}

    private final WaitingMarks<Published> marks = new WaitingMarks<>(Integer.MAX_VALUE);
    private final WaitingMarks<Acked> acks = new WaitingMarks<>(MAX_WAITING_ACKS);
    private final Object lifecycle = new Object();
    private final AtomicLong transactions = new AtomicLong();
    private final AtomicLong requestsRun = new AtomicLong();
    private final AtomicLong busyNanos = new AtomicLong();
    private @Nullable Thread thread; // guarded by lifecycle
    private final WriterConnection connection; // used on the writer thread only

    private final Clock clock;

    /** A writer whose published marks carry the system clock's time. */
    OutboxWriter(Jdbi jdbi) {
        this(jdbi, Clock.systemUTC());
    }

    /** @param clock the time of a published mark ({@code receipt_published_at}): when the receipts were handed over */
    OutboxWriter(Jdbi jdbi, Clock clock) {
        this.connection = new WriterConnection(jdbi);
        this.clock = clock;
    }

    /** Runs {@code work} in the writer's next transaction and returns its result once that is committed. */
    <R> R write(Work<R> work) {
        if (Thread.currentThread() == currentThread()) {
            throw new IllegalStateException("a write request from inside a write request would wait for itself");
        }
        CompletableFuture<R> done = new CompletableFuture<>();
        requests.add(new Request<>(work, done));
        ensureRunning();
        try {
            return done.join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            if (cause == null) {
                throw e; // nothing to unwrap: rethrown as join threw it
            }
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException("outbox write failed: " + cause.getMessage(), cause);
        }
    }

    WriterFigures figures() {
        return new WriterFigures(transactions.get(), requestsRun.get(), busyNanos.get() / 1e9, acks.dropped());
    }

    /** Requests waiting for the writer's next transaction. */
    int queued() {
        return requests.size();
    }

    /** Records that these rows' final receipts were handed to the broker: committed with the next transaction. */
    void markPublished(List<Long> ids) {
        marks.add(List.of(new Published(List.copyOf(ids), clock.millis())));
    }

    /**
     * Records a device's PUBACK of a command's final receipt ({@code receipt_acked_at}, the first one): committed with
     * the next transaction; past {@link #MAX_WAITING_ACKS} waiting, not recorded (counted in {@link #figures()}).
     */
    void markAcked(Acked ack) {
        acks.add(List.of(ack));
    }

    /** Commits the marks that wait for a transaction, in one of their own if none comes. */
    void flushMarks() {
        if (marks.waiting() || acks.waiting()) {
            write(h -> Boolean.TRUE); // a transaction for the marks alone: its result is not used
        }
    }

    private @Nullable Thread currentThread() {
        synchronized (lifecycle) {
            return thread;
        }
    }

    private void ensureRunning() {
        synchronized (lifecycle) {
            if (thread == null) {
                thread = new Thread(this::run, "outbox-writer");
                thread.setDaemon(true);
                thread.start();
            }
        }
    }

    private void run() {
        List<Request<?>> group = new ArrayList<>();
        try {
            while (true) {
                Request<?> first = requests.take();
                if (first.work() == STOP) {
                    first.done().complete(null);
                    return;
                }
                group.add(first);
                drainUpToStop(group);
                boolean stop = group.get(group.size() - 1).work() == STOP;
                commit(group);
                group.clear();
                if (stop) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            connection.close();
            failAll(group, new IllegalStateException("the outbox writer stopped"));
            synchronized (lifecycle) {
                if (thread == Thread.currentThread()) {
                    thread = null;
                }
            }
            if (!requests.isEmpty()) {
                ensureRunning(); // requests that came while this thread ended (after an Error): a new writer takes them
            }
        }
    }

    /** Adds the requests waiting now, up to the limit; a stop request ends the group (it is completed after it). */
    private void drainUpToStop(List<Request<?>> group) {
        while (group.size() < MAX_REQUESTS_PER_TRANSACTION) {
            Request<?> next = requests.poll();
            if (next == null) {
                return;
            }
            group.add(next);
            if (next.work() == STOP) {
                return;
            }
        }
    }

    /** Never run: the writer completes a stop request without running its work. */
    private static final Work<Object> STOP = h -> Boolean.TRUE;

    /**
     * Runs the group in one transaction and completes its requests after the commit; the figures count the transaction
     * before any request is completed, so a caller that saw its request done sees it counted.
     */
    private void commit(List<Request<?>> group) {
        long start = System.nanoTime();
        List<Runnable> completions = List.of();
        try {
            completions = commitTimed(group);
        } finally {
            transactions.incrementAndGet();
            requestsRun.addAndGet(group.size());
            busyNanos.addAndGet(System.nanoTime() - start);
        }
        completions.forEach(Runnable::run);
    }

    /** The completions to run once the commit is counted; none if the group failed (its requests are failed here). */
    private List<Runnable> commitTimed(List<Request<?>> group) {
        List<Published> marked = marks.take();
        List<Acked> acked = acks.take();
        List<Runnable> completions = new ArrayList<>(group.size());
        try {
            connection.open();
            NamedStatements sql = connection.statements();
            sql.get(OutboxSql.BEGIN_IMMEDIATE).run();
            if (!acked.isEmpty()) { // before the published marks, which are never later than a PUBACK
                markAcked(sql, acked);
            }
            for (Published p : marked) { // one statement per hand-over (a settle's finals), with its time
                sql.get(OutboxSql.MARK_PUBLISHED)
                        .set("ids", OutboxSql.idList(p.ids()))
                        .set("now", p.at())
                        .update();
            }
            boolean alone = group.size() == 1;
            for (Request<?> request : group) {
                if (request.work() == STOP) {
                    completions.add(() -> request.done().complete(null));
                } else if (alone) {
                    request.run(sql, completions);
                } else {
                    runInSavepoint(request, sql, completions);
                }
            }
            sql.get(OutboxSql.COMMIT).run();
        } catch (SQLException | RuntimeException e) {
            connection.rollbackAndClose();
            marks.giveBack(marked);
            acks.giveBack(acked);
            failAll(group, e);
            return List.of();
        } catch (Error e) {
            connection.rollbackAndClose();
            failAll(group, e);
            throw e;
        }
        return completions;
    }

    /** The PUBACK marks, one kept statement run as a batch. */
    private static void markAcked(NamedStatements sql, List<Acked> acked) throws SQLException {
        NamedStatements.Named mark = sql.get(OutboxSql.MARK_ACKED);
        for (Acked a : acked) {
            mark.set("at", a.at())
                    .set("c", a.clientId())
                    .set("id", a.commandId())
                    .addBatch();
        }
        mark.runBatch();
    }

    /** One request of several: what it wrote is rolled back alone if it fails, and it fails alone. */
    private static void runInSavepoint(Request<?> request, NamedStatements sql, List<Runnable> completions)
            throws SQLException {
        sql.get(OutboxSql.SAVEPOINT).run();
        try {
            request.run(sql, completions);
            sql.get(OutboxSql.RELEASE_SAVEPOINT).run();
        } catch (SQLException | RuntimeException e) {
            sql.get(OutboxSql.ROLLBACK_TO_SAVEPOINT).run();
            sql.get(OutboxSql.RELEASE_SAVEPOINT).run();
            completions.add(() -> request.done().completeExceptionally(e));
        }
    }

    private static void failAll(List<Request<?>> group, Throwable cause) {
        for (Request<?> request : group) {
            request.done().completeExceptionally(cause);
        }
    }

    /**
     * Commits the marks left and every request queued before this call, then stops the thread and closes the
     * connection. A request after it starts the writer again.
     */
    void close() {
        try {
            flushMarks();
        } catch (RuntimeException e) {
            // those receipts are published again, flagged replayed, after the next start
        }
        Thread running = currentThread();
        if (running == null) {
            return;
        }
        requests.add(new Request<>(STOP, new CompletableFuture<>()));
        try {
            running.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
