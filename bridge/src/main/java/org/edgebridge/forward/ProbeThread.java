package org.edgebridge.forward;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.edgebridge.outbox.ClaimedEvent;
import org.edgebridge.worker.Workers;
import org.jspecify.annotations.Nullable;

/**
 * The {@link ProbeSlot} of a forwarder: a thread of its own ("forwarder-probe") that sends one probe at a time and
 * wakes the steps when it is done. Started with the forwarder's loop and stopped after it; until it is started (a
 * forwarder whose steps a test runs one by one) a probe is sent at once on the caller's thread.
 */
final class ProbeThread implements ProbeSlot {
    private final Thread thread;
    private final Runnable onDone;
    private @Nullable List<ClaimedEvent> events; // guarded by this: sent and not yet taken
    private @Nullable Supplier<CentralCall.Done> request; // guarded by this: to be sent by the thread
    private CentralCall.@Nullable Done done; // guarded by this
    private boolean started; // guarded by this
    private boolean sending; // guarded by this
    private boolean running = true; // guarded by this

    /** @param onDone run on the probe's thread when a probe is done (wakes the steps) */
    ProbeThread(Workers workers, Runnable onDone) {
        this.onDone = onDone;
        this.thread = workers.thread("forwarder-probe", this::run);
        this.thread.setDaemon(true);
    }

    synchronized void start() {
        started = true;
        thread.start();
    }

    @Override
    public synchronized boolean busy() {
        return events != null;
    }

    @Override
    public synchronized int eventsOut() {
        return events == null ? 0 : events.size();
    }

    @Override
    public void send(List<ClaimedEvent> probe, Supplier<CentralCall.Done> send) {
        synchronized (this) {
            if (events != null) {
                throw new IllegalStateException("a probe is under way");
            }
            events = List.copyOf(probe);
            if (started) {
                request = send;
                notifyAll();
                return;
            }
        }
        CentralCall.Done result = send.get(); // not started: the caller's thread sends it
        synchronized (this) {
            done = result;
        }
    }

    @Override
    public synchronized Optional<Done> awaitDone(Duration grace) {
        long deadline = System.nanoTime() + grace.toNanos();
        try {
            long left;
            while (done == null && events != null && (left = (deadline - System.nanoTime()) / 1_000_000) > 0) {
                wait(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return takeDone();
    }

    @Override
    public synchronized Optional<Done> takeDone() {
        CentralCall.Done d = done;
        List<ClaimedEvent> e = events;
        if (d == null || e == null) {
            return Optional.empty();
        }
        done = null;
        events = null;
        return Optional.of(new Done(e, d));
    }

    private void run() {
        while (true) {
            Supplier<CentralCall.Done> next;
            synchronized (this) {
                while (running && request == null) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (!running || request == null) {
                    return;
                }
                next = request;
                request = null;
                sending = true;
            }
            CentralCall.Done result = next.get();
            synchronized (this) {
                done = result;
                sending = false;
                notifyAll();
            }
            onDone.run();
        }
    }

    @Override
    public List<ClaimedEvent> close(Duration budget) {
        long deadline = System.nanoTime() + budget.toNanos();
        boolean interrupt;
        synchronized (this) {
            request = null; // a probe the thread has not picked up is not sent
            try {
                long left;
                while (sending && (left = (deadline - System.nanoTime()) / 1_000_000) > 0) {
                    wait(left);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            interrupt = sending;
            running = false;
            notifyAll();
        }
        try {
            if (interrupt) {
                thread.interrupt(); // the HTTP call ends; its events are released by the caller
            }
            if (thread.isAlive()) {
                thread.join(5_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            List<ClaimedEvent> left = events == null ? List.of() : events;
            events = null;
            done = null;
            return left;
        }
    }
}
