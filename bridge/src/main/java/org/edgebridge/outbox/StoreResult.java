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
}
