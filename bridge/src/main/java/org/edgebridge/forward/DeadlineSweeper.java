package org.edgebridge.forward;

import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;
import org.edgebridge.worker.Workers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread ("ingest-deadlines") that cuts the exchanges of a {@link BlockingIngestClient} past their deadline:
 * each exchange is watched from its start and forgotten at its end; one past its deadline is cut (its socket closed)
 * and cut again every {@link #AGAIN_NANOS} until it ends, in case it was between two steps the first time. No timer
 * per request: a delay queue of the exchanges under way (at most {@code forwarder.maxConcurrentRequests} and a probe).
 * Started at the first exchange, stopped by {@link #close()}. Thread-safe.
 */
final class DeadlineSweeper implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DeadlineSweeper.class);
    static final long AGAIN_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    /** An exchange watched, with its deadline. */
    abstract static class Watched implements Delayed {
        private volatile long dueNanos;

        /** @param deadlineNanos on {@link System#nanoTime()}'s scale */
        Watched(long deadlineNanos) {
            this.dueNanos = deadlineNanos;
        }

        /**
         * Cuts the exchange, past its deadline; on the sweeper's thread, must not block.
         *
         * @return whether it is still under way (it is cut again a little later)
         */
        abstract boolean cut();

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(dueNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            long d = other instanceof Watched w
                    ? dueNanos - w.dueNanos
                    : getDelay(TimeUnit.NANOSECONDS) - other.getDelay(TimeUnit.NANOSECONDS);
            return Long.signum(d);
        }
    }

    private final DelayQueue<Watched> watched = new DelayQueue<>();
    private final Thread thread;
    private volatile boolean started;
    private volatile boolean closed;

    DeadlineSweeper(Workers workers) {
        this.thread = workers.thread("ingest-deadlines", this::run);
        this.thread.setDaemon(true);
    }

    /** Watches an exchange from now until {@link #forget}: past its deadline it is cut. */
    void watch(Watched exchange) {
        if (!started) {
            start();
        }
        watched.add(exchange);
    }

    private synchronized void start() {
        if (!started && !closed) {
            thread.start();
            started = true;
        }
    }

    /** The exchange ended. */
    void forget(Watched exchange) {
        watched.remove(exchange);
    }

    private void run() {
        while (!closed) {
            Watched due;
            try {
                due = watched.take();
            } catch (InterruptedException e) {
                continue; // close() interrupts: closed is set
            }
            boolean again;
            try {
                again = due.cut();
            } catch (RuntimeException e) { // one exchange must not end the deadlines of all
                LOG.warn("cutting an exchange with central past its deadline failed", e);
                again = false;
            }
            if (again) {
                due.dueNanos = System.nanoTime() + AGAIN_NANOS;
                watched.add(due);
            }
        }
    }

    /** Stops the thread; exchanges still under way are no longer cut (the forwarder stopped before). */
    @Override
    public synchronized void close() {
        closed = true;
        if (started) {
            thread.interrupt();
        }
    }
}
