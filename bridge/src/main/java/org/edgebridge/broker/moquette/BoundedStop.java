package org.edgebridge.broker.moquette;

import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs Moquette's stop on a thread of its own and waits for it at most a given time. Moquette 0.17 closes its H2
 * store in {@code Server.stopServer()} without a time limit, and h2-mvstore 2.1.212 can spin in
 * {@code MVStore.closeStore} for ever once a background write has failed (a full disk, a store closed under it:
 * docs/moquette.md, "A stop that never ends"). Past the limit the stop goes on without it: the thread is a daemon and
 * the process can end; what the store holds is what a {@code kill -9} would have left, which the next start repairs.
 */
final class BoundedStop {
    private static final Logger LOG = LoggerFactory.getLogger(BoundedStop.class);

    private BoundedStop() {}

    /** @return true if {@code stop} ended within {@code limit} (with or without an exception, which is logged) */
    static boolean run(Runnable stop, Duration limit, String threadName) {
        Thread t = new Thread(
                () -> {
                    try {
                        stop.run();
                    } catch (RuntimeException e) {
                        LOG.error("Moquette did not stop cleanly; its session store is repaired at the next start", e);
                    }
                },
                threadName);
        t.setDaemon(true);
        t.start();
        try {
            t.join(limit.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (t.isAlive()) {
            StackTraceElement[] at = t.getStackTrace();
            LOG.error(
                    "Moquette's stop did not end within {} (at {}): the bridge stops without it; the session store "
                            + "is left as a kill -9 would leave it and is repaired at the next start",
                    limit,
                    at.length > 0 ? at[0] : "?");
            return false;
        }
        return true;
    }
}
