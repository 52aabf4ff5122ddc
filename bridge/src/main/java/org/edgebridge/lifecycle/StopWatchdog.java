package org.edgebridge.lifecycle;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says where a stop hangs: if the stop it watches has not ended {@code after} its start, it logs, once, the stack of
 * every thread of the process. Without it a stop that never ends leaves one line ("stopping") and silence, and the
 * supervisor's kill -9 then takes the evidence with it. Thread "stop-watchdog", a daemon, owned here: ended by {@link
 * #close()}.
 */
public final class StopWatchdog implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StopWatchdog.class);

    private final CountDownLatch ended = new CountDownLatch(1);

    private StopWatchdog() {}

    /** Starts watching a stop of {@code what} that should end within {@code after}. */
    public static StopWatchdog watch(String what, Duration after) {
        StopWatchdog watchdog = new StopWatchdog();
        Thread thread = new Thread(() -> watchdog.await(what, after), "stop-watchdog");
        thread.setDaemon(true);
        thread.start();
        return watchdog;
    }

    private void await(String what, Duration after) {
        try {
            if (ended.await(after.toMillis(), TimeUnit.MILLISECONDS)) {
                return;
            }
        } catch (InterruptedException e) {
            return;
        }
        LOG.warn(
                "{} has not stopped after {} ms; every thread's stack, to show where it waits:\n{}",
                what,
                after.toMillis(),
                stacks());
    }

    static String stacks() {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<Thread, StackTraceElement[]> e :
                Thread.getAllStackTraces().entrySet()) {
            Thread t = e.getKey();
            out.append('"')
                    .append(t.getName())
                    .append("\" ")
                    .append(t.getState())
                    .append('\n');
            for (StackTraceElement frame : e.getValue()) {
                out.append("    at ").append(frame).append('\n');
            }
        }
        return out.toString();
    }

    /** The stop ended: nothing is logged. */
    @Override
    public void close() {
        ended.countDown();
    }
}
