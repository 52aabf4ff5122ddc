package org.edgebridge.forward;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.edgebridge.worker.Workers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The forwarder's threads: each runs steps ({@link ForwardStep}) one after the other and waits between them as
 * the step's result says. The only place in the forwarder that blocks: the waits between steps, the linger, and
 * the rate limiters' waits inside a step ({@link #sleep}).
 *
 * <p>Linger: after an idle step, a {@link #wake()} (new rows) ends the idle wait, and the loop waits
 * {@code forwarder.linger} once more, so that a burst leaves in one request.
 *
 * <p>Thread-safe: {@link #wake()} and {@link #close} may be called from any thread.
 */
final class ForwarderLoop {
    private static final Logger LOG = LoggerFactory.getLogger(ForwarderLoop.class);
    /**
     * The longest wait between two steps: a forwarder held for minutes (backoff, Retry-After, an open breaker, a
     * pause) still steps once a second, so that what a step does besides sending goes on through an outage (commands
     * that expire become final on time, receipts never handed to the broker are published). A held step sends
     * nothing: its policy holds it again for what is left of the wait.
     */
    static final Duration LONGEST_WAIT = Duration.ofSeconds(1);

    /** A wait inside a step (the rate limiters'): ends early only when the loop closes. */
    @FunctionalInterface
    interface Sleeper {
        void sleep(Duration duration);
    }

    private final Duration linger;
    private final List<Thread> threads = new ArrayList<>();
    private final Object signal = new Object();
    private boolean woken; // guarded by signal
    private boolean waitEnded; // guarded by signal
    private volatile boolean running;

    ForwarderLoop(Duration linger) {
        this.linger = linger;
    }

    /** Adds {@code count} threads ("forwarder", or "forwarder-N") that run {@code step} until {@link #close}. */
    void addThreads(Workers workers, int count, Supplier<StepResult> step) {
        for (int i = 1; i <= count; i++) {
            threads.add(workers.thread(count == 1 ? "forwarder" : "forwarder-" + i, () -> run(step)));
        }
    }

    void start() {
        running = true;
        threads.forEach(Thread::start);
    }

    boolean running() {
        return running;
    }

    /** New rows may be due: end an idle wait. */
    void wake() {
        synchronized (signal) {
            woken = true;
            signal.notifyAll();
        }
    }

    /**
     * Ends the wait between steps whatever it is for (a backoff, Retry-After, the breaker): an admin ended every
     * wait ({@link Forwarder#retryNow()}). A wait inside a step (the rate limiters') is not ended.
     */
    void endWait() {
        synchronized (signal) {
            waitEnded = true;
            signal.notifyAll();
        }
    }

    /** Waits {@code duration} unless the loop closes first. */
    void sleep(Duration duration) {
        await(duration, false, false);
    }

    private void run(Supplier<StepResult> step) {
        boolean wasIdle = false;
        while (running) {
            StepResult result = step.get();
            Duration wait = result.waitFor().compareTo(LONGEST_WAIT) > 0 ? LONGEST_WAIT : result.waitFor();
            boolean wokenEarly = await(wait, result.endsOnWake(), true);
            if (wasIdle && wokenEarly && !linger.isZero()) {
                await(linger, false, false);
            }
            wasIdle = result.endsOnWake();
        }
    }

    /**
     * @param endsOnEndWait whether {@link #endWait()} ends it
     * @return true if the wait was ended by {@link #wake()} (only when {@code endsOnWake})
     */
    private boolean await(Duration duration, boolean endsOnWake, boolean endsOnEndWait) {
        long deadline = System.nanoTime() + duration.toNanos();
        synchronized (signal) {
            while (running) {
                if (waitEnded && endsOnEndWait) {
                    waitEnded = false;
                    return false;
                }
                if (woken && endsOnWake) {
                    woken = false;
                    return true;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(signal, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        return false;
    }

    /**
     * Stops after the step under way, waiting at most {@code budget}; then interrupts it (the HTTP call ends, its
     * events are released; a claim left behind returns to pending at the next start).
     */
    void close(Duration budget) {
        running = false;
        synchronized (signal) {
            signal.notifyAll();
        }
        long deadline = System.nanoTime() + budget.toNanos();
        try {
            for (Thread thread : threads) {
                thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
                if (thread.isAlive()) {
                    LOG.warn("{} still busy after the shutdown budget; interrupting its request", thread.getName());
                    thread.interrupt();
                    thread.join(5_000);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
