package org.edgebridge.lifecycle;

import java.util.concurrent.atomic.AtomicBoolean;

/** What makes a {@link Component}'s {@code start} and {@code close} idempotent. Thread-safe. */
public final class Once {
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();

    /** @return true for the first call, unless the component was closed already */
    public boolean start() {
        return !closed.get() && started.compareAndSet(false, true);
    }

    /** @return true for the first call */
    public boolean close() {
        return closed.compareAndSet(false, true);
    }

    public boolean started() {
        return started.get();
    }
}
