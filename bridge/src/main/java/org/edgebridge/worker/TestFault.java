package org.edgebridge.worker;

import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Test hook, inert unless the JVM is started with {@code -Dedgebridge.test.workerError=NAME}: the first time the
 * worker NAME passes its point (the forwarder after a claim, the intake writer before a commit), it throws an
 * {@link Error}, as an OutOfMemoryError would there. Lets a test see what the bridge does when a worker dies,
 * in a real child process, without starving the whole JVM of memory. With {@code NAME:runtime} it throws an
 * unexpected RuntimeException instead, which the worker survives.
 */
public enum TestFault {
    /** In the forwarder, after rows were claimed. */
    FORWARDER,
    /** In the intake writer, before the outbox transaction. */
    INTAKE_WRITER;

    private static final Logger LOG = LoggerFactory.getLogger(TestFault.class);
    private static final String ARMED = System.getProperty("edgebridge.test.workerError");
    private static final AtomicBoolean THROWN = new AtomicBoolean();

    /** Returns at once unless this point is armed; then throws an Error, once. */
    public void enter() {
        if (ARMED == null || !ARMED.split(":")[0].equals(name()) || !THROWN.compareAndSet(false, true)) {
            return;
        }
        if (ARMED.endsWith(":runtime")) {
            LOG.warn("test hook: throwing a RuntimeException in {}", name());
            throw new IllegalStateException("test hook: edgebridge.test.workerError=" + ARMED);
        }
        LOG.warn("test hook: throwing an Error in {}", name());
        throw new InternalError("test hook: edgebridge.test.workerError=" + name());
    }
}
