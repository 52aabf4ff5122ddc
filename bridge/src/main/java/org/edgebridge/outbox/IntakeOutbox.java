package org.edgebridge.outbox;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/** What the intake sees of the {@link Outbox}: it stores commands and answers resends. */
public interface IntakeOutbox {
    /** The outbox's file, whose free space the intake watches. */
    Path file();

    /** {@link Outbox#store(Supplier, long, DeviceShare)}. */
    List<StoreResult> store(Supplier<List<NewCommand>> batch, long capacity, DeviceShare share);

    /** {@link Outbox#freeBytes()}. */
    long freeBytes();

    /** {@link Outbox#openCount()}. */
    long openCount();

    /** {@link Outbox#find(String, String)}. */
    Optional<CommandRecord> find(String clientId, String commandId);

    /** {@link Outbox#maxRowId()}. */
    long maxRowId();
}
