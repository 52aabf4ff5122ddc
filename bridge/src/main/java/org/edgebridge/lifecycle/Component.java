package org.edgebridge.lifecycle;

import java.time.Duration;

/**
 * A part of the bridge that owns threads or sockets. {@code Bridge} starts the parts in one order and closes them in
 * the reverse order (docs/design.md, "Parts and threads").
 */
public interface Component {
    /** Starts the part; a second call does nothing, and so does a call after {@link #close}. */
    void start();

    /**
     * Stops the part, waiting at most {@code timeout} for the work under way; a second call does nothing, and a call
     * before {@link #start} only releases what the constructor took.
     */
    void close(Duration timeout);
}
