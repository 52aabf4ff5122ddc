/**
 * The SQLite outbox: commands, their receipts and their history, with the schema migrated by Flyway from
 * {@code sql/}. Nothing else in the bridge holds SQL or touches JDBC.
 *
 * <p>One persistence style, Jdbi's fluent API: every statement is a constant of {@link
 * org.edgebridge.outbox.OutboxSql}; each row is read by column name into a record ({@link
 * org.edgebridge.outbox.OutboxRows}); parameters are bound by name. The intake's writer ({@link
 * org.edgebridge.outbox.CommandWriter}) holds one handle open with its statements prepared once, and begins each group
 * commit with {@code BEGIN IMMEDIATE}; every other call opens a connection of its own.
 *
 * <p>Threads: none of its own but {@link org.edgebridge.outbox.RetentionPurger}'s {@code outbox-retention}. {@link
 * org.edgebridge.outbox.Outbox#store} is called by the intake's writer thread ({@code intake-writer}), claims and settles by the forwarder's
 * workers, reads by the admin API; all of them are safe to call at once.
 *
 * <p>Tests build outboxes in any state with {@code OutboxFixture} (test sources), through this package's own code.
 */
package org.edgebridge.outbox;
