package org.edgebridge.broker.moquette;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class BrokerStoreDiskFullTest {
    private final Path store = Path.of("/data/broker");

    @Test
    void a_full_disk_anywhere_in_the_failure_is_found_and_named() {
        // as h2-mvstore reports a failed write, wrapped by MoquetteStart
        RuntimeException h2 = new IllegalStateException(
                "Writing to sun.nio.ch.FileChannelImpl@1 failed", new IOException("No space left on device"));
        assertThat(BrokerStoreDiskFull.of(store, new BrokerStoreRefused("the MQTT broker did not start", h2)))
                .hasValueSatisfying(e -> assertThat(e.getMessage())
                        .contains("/data/broker is full (No space left on " + "device)")
                        .contains("sessions kept")
                        .contains("outbox.minFreeDisk"));
        BrokerStoreRefused suppressed = new BrokerStoreRefused("repair failed");
        suppressed.addSuppressed(new FileSystemException("/data/broker/x", null, "Disk quota exceeded"));
        assertThat(BrokerStoreDiskFull.of(store, suppressed)).isPresent();
    }

    @Test
    void any_other_failure_is_not_a_full_disk() {
        assertThat(BrokerStoreDiskFull.of(
                        store,
                        new BrokerStoreRefused(
                                "Can't track for expiration a session",
                                new IllegalStateException("No space left on device"))))
                .as("only an I/O error says so")
                .isEmpty();
        assertThat(BrokerStoreDiskFull.of(
                        store, new BrokerStoreRefused("corrupt", new IOException("Input/output error"))))
                .isEmpty();
    }
}
