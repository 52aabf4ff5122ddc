package org.edgebridge.intake;

import java.util.List;
import java.util.Optional;
import org.edgebridge.outbox.DeviceShare;

/** What the admin side reads of the intake. */
public interface IntakeView {
    IntakeStats stats();

    /** The error of the last outbox write while writes fail; empty when the last write that stored a command worked. */
    Optional<String> writeFailure();

    /** True while new commands are refused because the outbox is at maxPending or the disk is below its floor. */
    boolean isFull();

    /** True while the disk is below {@code outbox.minFreeDisk}. */
    boolean isLowOnDisk();

    /**
     * The devices refused lately because they hold their share of the outbox (at most {@link FullDevices#MAX_NAMED},
     * the most open commands first): clientId, open commands, open bytes.
     */
    List<DeviceAtShare> devicesAtShare();

    /** Commands refused retry_later / device_outbox_full since start. */
    long deviceShareRefusals();

    /** {@code outbox.maxPendingPerDevice} and {@code outbox.maxPendingBytesPerDevice}. */
    DeviceShare deviceShare();

    /** A device at its share of the outbox, as last refused. */
    record DeviceAtShare(String clientId, long openCommands, long openBytes) {}

    /** {@code outbox.maxPending}: the open commands at which new ones are refused. */
    long maxPending();

    /** False once the bridge began to stop: every new command is answered retry_later / shutting_down. */
    boolean isAccepting();
}
