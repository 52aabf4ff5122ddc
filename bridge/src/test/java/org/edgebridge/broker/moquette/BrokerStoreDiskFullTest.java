package org.edgebridge.broker.moquette;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokerStoreDiskFullTest {
    @TempDir
    Path store;

    @Test
    void a_full_disk_anywhere_in_the_failure_is_found_and_named() {
        // as h2-mvstore reports a failed write, wrapped by MoquetteStart
        RuntimeException h2 = new IllegalStateException(
                "Writing to sun.nio.ch.FileChannelImpl@1 failed", new IOException("No space left on device"));
        assertThat(BrokerStoreDiskFull.of(store, new BrokerStoreRefused("the MQTT broker did not start", h2), true))
                .hasValueSatisfying(e -> assertThat(e.getMessage())
                        .contains("is full (No space left on device)")
                        .contains("sessions kept")
                        .contains("outbox.minFreeDisk"));
        assertThat(BrokerStoreDiskFull.of(store, new BrokerStoreRefused("empty store too", h2), false))
                .hasValueSatisfying(e -> assertThat(e.getMessage()).contains("on an empty store"));
        BrokerStoreRefused suppressed = new BrokerStoreRefused("repair failed");
        suppressed.addSuppressed(new FileSystemException("/data/broker/x", null, "Disk quota exceeded"));
        assertThat(BrokerStoreDiskFull.of(store, suppressed, true)).isPresent();
    }

    @Test
    void any_other_failure_on_a_disk_with_room_is_not_a_full_disk() {
        assertThat(BrokerStoreDiskFull.hasRoom(store)).isTrue();
        assertThat(BrokerStoreDiskFull.of(
                        store,
                        new BrokerStoreRefused(
                                "Can't track for expiration a session",
                                new IllegalStateException("No space left on device")),
                        true))
                .as("only an I/O error says so")
                .isEmpty();
        assertThat(BrokerStoreDiskFull.of(
                        store, new BrokerStoreRefused("corrupt", new IOException("Input/output error")), true))
                .isEmpty();
    }

    /** The C library's text is in the system's language: an I/O error on a disk without room for the store is one. */
    @Test
    void an_io_error_in_another_language_on_a_disk_without_room_for_the_store_is_a_full_disk() throws Exception {
        try (RandomAccessFile sparse =
                new RandomAccessFile(store.resolve(BrokerStoreRepair.STORE_FILE).toFile(), "rw")) {
            sparse.setLength(1L << 43); // 8 TiB, sparse: more than this disk has free
        }
        assertThat(BrokerStoreDiskFull.hasRoom(store)).isFalse();
        IOException german = new IOException("Auf dem Gerät ist kein Speicherplatz mehr verfügbar");
        assertThat(BrokerStoreDiskFull.of(store, new BrokerStoreRefused("did not start", german), true))
                .hasValueSatisfying(e -> assertThat(e.getMessage()).contains("bytes free; a start needs the store's"));
    }
}
