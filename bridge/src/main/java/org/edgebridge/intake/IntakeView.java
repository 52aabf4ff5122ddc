package org.edgebridge.intake;

import java.util.Optional;

/** What the admin side reads of the intake. */
public interface IntakeView {
    IntakeStats stats();

    /** The error of the last outbox write while writes fail; empty when the last write that stored a command worked. */
    Optional<String> writeFailure();

    /** True while new commands are refused because the outbox is at maxPending or the disk is below its floor. */
    boolean isFull();

    /** True while the disk is below {@code outbox.minFreeDisk}. */
    boolean isLowOnDisk();

    /** {@code outbox.maxPending}: the open commands at which new ones are refused. */
    long maxPending();

    /** False once the bridge began to stop: every new command is answered retry_later / shutting_down. */
    boolean isAccepting();
}
