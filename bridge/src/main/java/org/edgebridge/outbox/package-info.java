/**
 * The SQLite outbox: commands, their receipts and their history, with the schema migrated by Flyway from
 * {@code sql/}. Nothing else in the bridge holds SQL or touches JDBC.
 *
 * <p>One writer: every write runs on the thread {@code outbox-writer} ({@link org.edgebridge.outbox.OutboxWriter}),
 * which owns the one write connection and commits the requests that wait (the intake's commands, the forwarder's
 * claims and settles, admin decisions, purges, the marks of published receipts) in one transaction, each request in a
 * savepoint of its own, one fsync for all; callers block until their request is committed.
 *
 * <p>Persistence style: Jdbi's fluent API; every statement is a constant of {@link org.edgebridge.outbox.OutboxSql};
 * each row is read by column name into a record ({@link org.edgebridge.outbox.OutboxRows}); parameters are bound by
 * name. Two measured exceptions run on plain JDBC statements prepared once on the writer's connection, because they
 * run for every command: the intake's ({@link org.edgebridge.outbox.CommandWriter}) and the claim ({@link
 * org.edgebridge.outbox.Claimer}, on the statements of {@code NamedStatements}). The writer's Jdbi statements are
 * kept ({@code KeptStatements}); reads open a connection of their own.
 *
 * <p>Threads: {@code outbox-writer} ({@link org.edgebridge.outbox.OutboxWriter}), {@link
 * org.edgebridge.outbox.RetentionPurger}'s {@code outbox-retention} and {@link
 * org.edgebridge.outbox.WalCheckpointer}'s {@code outbox-checkpoint}. {@link org.edgebridge.outbox.Outbox#store} is
 * called by the intake's writer thread ({@code intake-writer}), claims and settles by the forwarder's workers, reads by
 * the admin API; all of them are safe to call at once.
 *
 * <p>Tests build outboxes in any state with {@code OutboxFixture} and many rows at once with {@code BulkLoader} (test
 * sources: tools, not the product).
 */
package org.edgebridge.outbox;
