package org.edgebridge.hook;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The points between two durable steps where a crash or a dying worker leaves the bridge in a distinct state
 * ({@code docs/design.md}, "Crash windows"); each is marked in the code with {@link #enter()}. The one test-hook
 * mechanism of the product: inert, a comparison with null, unless the JVM is started with
 * {@code -Dedgebridge.test.hook=POINT:ACTION}, and then only at that point:
 *
 * <ul>
 *   <li>{@code hold} (the default): the first thread to enter writes the file named by
 *       {@code -Dedgebridge.test.hookMarker} and holds there for {@code -Dedgebridge.test.hookHoldMs} (default 60000),
 *       so that a test can {@code kill -9} the process inside the window; with {@code -Dedgebridge.test.hookSkip=N}
 *       the first N entries pass and the next one holds. Nothing is mocked: the process really is between the steps.
 *   <li>{@code error}: the first thread to enter throws an {@link Error}, as an OutOfMemoryError would there (what
 *       the bridge does when a worker dies, in a real child process, without starving the JVM of memory).
 *   <li>{@code runtime}: the first thread to enter throws an unexpected RuntimeException, which the worker survives.
 * </ul>
 */
public enum TestHook {
    /** The broker has sent PUBACK; the intake writer's outbox transaction has not committed. */
    BEFORE_INTAKE_COMMIT,
    /** The command is committed; its {@code stored} receipt is not published. */
    AFTER_INTAKE_COMMIT,
    /** Rows are claimed (in flight); the request to central has not been sent (the forwarder). */
    AFTER_CLAIM,
    /** Central's final receipt is committed; it is not published to the device. */
    AFTER_FINAL_COMMIT,
    /**
     * Inside Moquette's protocol handler, which calls the bridge's authenticator for a CONNECT with a username and
     * catches (and only logs) whatever it throws: not a crash window, the place where a library swallows an Error.
     */
    IN_BROKER_AUTHENTICATOR;

    private static final Logger LOG = LoggerFactory.getLogger(TestHook.class);
    private static final String ARMED = System.getProperty("edgebridge.test.hook");
    private static final AtomicBoolean FIRED = new AtomicBoolean();
    private static final AtomicInteger PASSED = new AtomicInteger();

    /** Marks that the calling thread is at this point. Returns at once unless this point is armed. */
    public void enter() {
        if (ARMED == null || !ARMED.split(":")[0].equals(name())) {
            return;
        }
        String action = ARMED.contains(":") ? ARMED.substring(ARMED.indexOf(':') + 1) : "hold";
        if (action.equals("hold") && PASSED.getAndIncrement() < Integer.getInteger("edgebridge.test.hookSkip", 0)) {
            return;
        }
        if (!FIRED.compareAndSet(false, true)) {
            return;
        }
        switch (action) {
            case "error" -> {
                LOG.warn("test hook: throwing an Error at {}", name());
                throw new InternalError("test hook: edgebridge.test.hook=" + ARMED);
            }
            case "runtime" -> {
                LOG.warn("test hook: throwing a RuntimeException at {}", name());
                throw new IllegalStateException("test hook: edgebridge.test.hook=" + ARMED);
            }
            default -> hold();
        }
    }

    private void hold() {
        long holdMs = Long.getLong("edgebridge.test.hookHoldMs", 60_000);
        LOG.warn("test hook: holding at {} for {} ms", name(), holdMs);
        String marker = System.getProperty("edgebridge.test.hookMarker");
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
