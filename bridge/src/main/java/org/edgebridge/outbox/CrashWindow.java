package org.edgebridge.outbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The points between two durable steps where a crash leaves the outbox in a distinct state
 * ({@code docs/design.md}, "Crash windows"). Each is marked in the code with {@link #enter()}.
 *
 * <p>Test hook, inert unless the JVM is started with {@code -Dedgebridge.test.crashWindow=NAME}: the first
 * thread to enter that window writes the file named by {@code -Dedgebridge.test.crashWindowMarker} and holds
 * there for {@code -Dedgebridge.test.crashWindowHoldMs} (default 60000), so that a test can {@code kill -9}
 * the process inside the window. Nothing is mocked: the process really is between the two steps. With
 * {@code -Dedgebridge.test.crashWindowSkip=N} the first N entries pass and the next one holds.
 */
public enum CrashWindow {
    /** The broker has sent PUBACK; the outbox transaction has not committed. */
    BEFORE_INTAKE_COMMIT,
    /** The command is committed; its {@code stored} receipt is not published. */
    AFTER_INTAKE_COMMIT,
    /** Rows are claimed (in flight); the request to central has not been sent. */
    AFTER_CLAIM,
    /** Central's final receipt is committed; it is not published to the device. */
    AFTER_FINAL_COMMIT;

    private static final Logger LOG = LoggerFactory.getLogger(CrashWindow.class);
    private static final String ARMED = System.getProperty("edgebridge.test.crashWindow");
    private static final AtomicBoolean ENTERED = new AtomicBoolean();
    private static final AtomicInteger PASSED = new AtomicInteger();

    /** Marks that the calling thread is inside this window. Returns at once unless this window is armed. */
    public void enter() {
        if (ARMED == null || !ARMED.equals(name())) {
            return;
        }
        if (PASSED.getAndIncrement() < Integer.getInteger("edgebridge.test.crashWindowSkip", 0)
                || !ENTERED.compareAndSet(false, true)) {
            return;
        }
        long holdMs = Long.getLong("edgebridge.test.crashWindowHoldMs", 60_000);
        LOG.warn("test hook: holding in crash window {} for {} ms", name(), holdMs);
        String marker = System.getProperty("edgebridge.test.crashWindowMarker");
        if (marker != null) {
            try {
                Files.writeString(Path.of(marker), name());
            } catch (IOException e) {
                LOG.error("test hook: cannot write marker {}", marker, e);
            }
        }
        try {
            Thread.sleep(holdMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
