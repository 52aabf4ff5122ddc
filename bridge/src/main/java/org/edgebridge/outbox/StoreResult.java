package org.edgebridge.outbox;

/** What {@link Outbox#store} did with one command. */
public sealed interface StoreResult {
    NewCommand command();

    /** Newly stored, with its sequence: the bridge now holds custody. */
    record Stored(NewCommand command, CommandRecord record) implements StoreResult {}

    /** The same (clientId, commandId) with the same bytes was stored before: nothing written. */
    record AlreadyStored(NewCommand command, CommandRecord record) implements StoreResult {}

    /** The same (clientId, commandId) was stored before with other bytes: the original is untouched. */
    record IdReused(NewCommand command, CommandRecord original) implements StoreResult {}

    /** Not stored: a new command whose expiresAt had passed when it arrived (docs/protocol.md §1.4). */
    record Expired(NewCommand command) implements StoreResult {}

    /** Not stored: the outbox is at its limit. Nothing stored earlier was touched. */
    record Full(NewCommand command) implements StoreResult {}

    /**
     * Not stored: the device holds its share of the outbox ({@link DeviceShare}): only its own new commands wait.
     *
     * @param openCommands the device's open commands when this one came
     * @param openBytes their payload bytes
     */
    record DeviceFull(NewCommand command, long openCommands, long openBytes) implements StoreResult {}

    /**
     * Not stored, for good: writing this command failed on something in it (a number SQLite or Java cannot hold, a
     * value SQLite refuses), not on the disk. Rolled back alone; the other commands of the batch are stored.
     *
     * @param error what failed, for the receipt's message
     */
    record Unstorable(NewCommand command, String error) implements StoreResult {}
}
