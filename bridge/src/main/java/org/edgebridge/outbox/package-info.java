/**
 * The SQLite outbox: commands, their receipts and their history, with the schema migrated by Flyway from
 * {@code sql/}. Nothing else in the bridge holds SQL or touches JDBC.
 *
 * <p>One writer: every write runs on the thread {@code outbox-writer} ({@link org.edgebridge.outbox.OutboxWriter}),
 * which owns the one write connection and commits the requests that wait (the intake's commands, the forwarder's
 * claims and settles, admin decisions, purges, the marks of published receipts) in one transaction, each request in a
 * savepoint of its own, one fsync for all; callers block until their request is committed.
 *
 * <p>Persistence style, two ways and one rule: <b>what runs for every command is plain JDBC</b> on statements
 * prepared once on the writer's connection, parameters bound by name ({@code NamedStatements}) or by position
 * ({@link org.edgebridge.outbox.CommandWriter}): the intake's insert, the claim ({@link
 * org.edgebridge.outbox.Claimer}) and the settle of finals with its history and the records it reads back ({@link
 * org.edgebridge.outbox.Settler}). A profile of the writer thread at 1,000 commands/s put Jdbi's per-statement
 * parsing, binding and mapping at about a third of its Java samples on those paths (docs/BENCHMARKS.md,
 * 2026-12-04). <b>Everything else is Jdbi's fluent API</b> (admin reads and requeues, parking, purges, migrations'
 * repairs): rows read by column name into records ({@link org.edgebridge.outbox.OutboxRows}), parameters bound by
 * name, the writer's statements kept ({@code KeptStatements}); reads open a connection of their own. Every
 * statement, of either kind, is a constant of {@link org.edgebridge.outbox.OutboxSql}.
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
@NullMarked
package org.edgebridge.outbox;

import org.jspecify.annotations.NullMarked;
