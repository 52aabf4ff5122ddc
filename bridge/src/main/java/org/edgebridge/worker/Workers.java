package org.edgebridge.worker;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.edgebridge.lifecycle.ExitCodes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bridge's own long-running threads (the forwarder workers, the intake writer). Each worker handles the
 * failures it expects itself; anything that still ends its thread (an {@link Error} such as OutOfMemoryError, or
 * an exception the worker did not expect) is a dead worker: recorded (the bridge is then not ready and raises the
 * {@code worker_died} alarm), logged, and handed to the {@code onDeath} action, which in {@code run} makes the process
 * exit with {@link ExitCodes#WORKER_DIED} so that its supervisor starts it again. An Error is then rethrown, and in
 * {@code run} {@link FatalErrors} halts the process at once rather than waiting for that graceful exit. A bridge
 * without its forwarder or its writer looks alive and does nothing: dying loudly is the only safe answer.
 *
 * <p>Thread-safe.
 */
public final class Workers {
    private static final Logger LOG = LoggerFactory.getLogger(Workers.class);

    private final Runnable onDeath;
    private final AtomicReference<String> death = new AtomicReference<>();

    /** @param onDeath run once, on its own thread, after the first worker died */
    public Workers(Runnable onDeath) {
        this.onDeath = onDeath;
    }

    /** A thread (not started) that runs {@code body} and reports its death if anything ends it but a normal return. */
    public Thread thread(String name, Runnable body) {
        return new Thread(
                () -> {
                    try {
                        body.run();
                    } catch (Throwable t) {
                        died(name, t);
                        if (t instanceof Error e) {
                            throw e;
                        }
                    }
                },
                name);
    }

    /**
     * A part that is no thread of this class is lost for good (the broker that could not be started again after a
     * session-loop death): acted on as a dead worker, so that the supervisor starts the bridge again.
     */
    public void lost(String part, Throwable cause) {
        died(part, cause);
    }

    private void died(String name, Throwable t) {
        String what = name + ": " + t;
        if (!death.compareAndSet(null, what)) {
            LOG.error("worker {} died too", what);
            return;
        }
        try {
            LOG.error(
                    "worker {} died; the bridge is not ready and stops (exit code {}) so that its supervisor starts it "
                            + "again",
                    what,
                    ExitCodes.WORKER_DIED,
                    t);
        } catch (Throwable ignored) {
            // logging may fail under OutOfMemoryError; the death is recorded and acted on all the same
        }
        Thread exit = new Thread(onDeath, "worker-died");
        exit.setDaemon(false);
        exit.start();
    }

    /** The first worker that died and why, if one did. */
    public Optional<String> death() {
        return Optional.ofNullable(death.get());
    }
}
