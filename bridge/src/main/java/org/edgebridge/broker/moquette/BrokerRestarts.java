package org.edgebridge.broker.moquette;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the embedded broker up. Moquette 0.17 never recovers a dead session loop or a store whose commit failed, so
 * after either the whole broker is stopped and started again. A full disk keeps it down, with its store kept, and it
 * tries again every {@link #DISK_FULL_RETRY} once the disk has room: exiting would bring a supervisor's restart to the
 * same full disk. Any other failure to start again goes to {@code lost}, which stops the bridge for its supervisor.
 *
 * <p>Every start and stop of the server runs under this object's lock, so a start, a restart and the bridge's stop
 * never overlap. Threads: owns "broker-enforcer", which runs the restarts and the tasks given to {@link #execute}.
 */
final class BrokerRestarts implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerRestarts.class);

    /** How often a broker down for a full disk tries to start again. */
    static final Duration DISK_FULL_RETRY = Duration.ofSeconds(5);

    /** The server kept up. */
    interface Server {
        /**
         * Starts it; {@code life} names this start, and its failures come back with it ({@link #failed}).
         *
         * @throws BrokerStoreDiskFull when the store's disk has no room
         */
        void start(int life);

        /** Stops it (also a server that failed half-way through its start). */
        void stop();

        /** Whether it was started and not stopped since. */
        boolean isUp();
    }

    private final Server server;
    private final Path storeDir;
    private final Consumer<Throwable> lost;
    private final ScheduledExecutorService enforcer =
            Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "broker-enforcer"));
    private final AtomicLong restarts = new AtomicLong();
    private volatile boolean stopping;
    /** Why the broker is down and waits to start again (a full disk), or null. */
    private volatile @Nullable String waitingFor;
    /** Which start the running server came from: a failure reported by an earlier one is old news. Guarded by this. */
    private int generation;
    /** The next try of a broker that waits for room, if one is scheduled. Guarded by this. */
    private @Nullable ScheduledFuture<?> retry;

    BrokerRestarts(Server server, Path storeDir, Consumer<Throwable> lost) {
        this.server = server;
        this.storeDir = storeDir;
        this.lost = lost;
    }

    /**
     * Starts the broker at the bridge's start. A disk without room for its store leaves it down and waiting, as for a
     * running broker, with the rest of the bridge up: the outbox still goes to central and the admin page says why
     * devices cannot connect.
     */
    synchronized void start() {
        try {
            server.start(++generation);
        } catch (BrokerStoreDiskFull e) {
            waitForRoom(e);
        }
    }

    /**
     * Start {@code life} failed: stop the broker and start it again on "broker-enforcer". With {@code full}, it stays
     * down and waits for room: a start would only eat the disk's last bytes with the repair's copy and fail again.
     */
    void failed(int life, Optional<BrokerStoreDiskFull> full) {
        if (stopping) {
            return;
        }
        execute(() -> guarded(() -> restart(life, full)));
    }

    /** Runs {@code task} on "broker-enforcer"; nothing once the bridge stops. */
    void execute(Runnable task) {
        try {
            enforcer.execute(task);
        } catch (RejectedExecutionException e) {
            // the bridge is stopping: nothing to restart or disconnect
        }
    }

    boolean stopping() {
        return stopping;
    }

    /** Restarts after a failure since the bridge started. */
    long count() {
        return restarts.get();
    }

    /** Why the broker is down and waits (its store's disk is full), if it does. */
    Optional<String> waitingFor() {
        return Optional.ofNullable(waitingFor);
    }

    /** What a task throws stops the bridge for its supervisor ({@code lost}): nothing else would see it. */
    private void guarded(Runnable task) {
        try {
            task.run();
        } catch (Throwable t) { // an Error too: nothing else would see it in this executor's future
            waitingFor = null;
            lost.accept(t);
        }
    }

    /** Nothing if a later start runs now, or the broker is down already (it waits for room). */
    private synchronized void restart(int life, Optional<BrokerStoreDiskFull> full) {
        if (stopping || life != generation || !server.isUp()) {
            return;
        }
        restarts.incrementAndGet();
        try {
            server.stop();
        } catch (RuntimeException e) {
            LOG.error("stopping the broker after a session-loop death failed; starting it again anyway", e);
        }
        if (full.isPresent()) {
            waitForRoom(full.get());
            return;
        }
        startAgain();
    }

    /**
     * Starts the stopped broker. A full disk (its store cannot write) leaves it down and tries again later, once the
     * disk has the store's size and a margin free; the store, which is intact, is not set aside. Any other failure
     * stops the bridge for its supervisor to start it again.
     */
    private synchronized void startAgain() {
        retry = null;
        if (stopping || server.isUp()) {
            return;
        }
        if (waitingFor != null && !BrokerStoreDiskFull.hasRoom(storeDir)) {
            scheduleRetry();
            return;
        }
        try {
            server.start(++generation);
        } catch (BrokerStoreDiskFull e) {
            waitForRoom(e);
            return;
        } catch (RuntimeException e) {
            LOG.error(
                    "the broker could not be started again: the bridge stops so that its supervisor starts it again",
                    e);
            waitingFor = null;
            lost.accept(e);
            return;
        }
        if (waitingFor != null) {
            LOG.warn("the broker store's disk has room again: broker started with the sessions it held; devices "
                    + "reconnect");
            waitingFor = null;
        } else {
            LOG.warn("broker restarted after a session-loop death; devices reconnect");
        }
    }

    private synchronized void waitForRoom(BrokerStoreDiskFull full) {
        if (waitingFor == null) {
            LOG.error("{}; trying again every {} s", full.getMessage(), DISK_FULL_RETRY.toSeconds(), full);
        }
        waitingFor = full.getMessage();
        scheduleRetry();
    }

    private synchronized void scheduleRetry() {
        if (retry == null && !stopping) {
            try {
                retry = enforcer.schedule(
                        () -> guarded(this::startAgain), DISK_FULL_RETRY.toMillis(), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                // the bridge is stopping
            }
        }
    }

    /** Stops "broker-enforcer" (no restart after this), then the server. */
    @Override
    public synchronized void close() {
        stopping = true;
        waitingFor = null;
        enforcer.shutdownNow();
        try {
            enforcer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        server.stop();
    }
}
