/**
 * The SQLite outbox: commands, their receipts and their history, with the schema migrated by Flyway from
 * {@code sql/}. Nothing else in the bridge holds SQL or touches JDBC.
 *
 * <p>One writer: every write runs on the thread {@code outbox-writer} ({@link org.edgebridge.outbox.OutboxWriter}),
 * which owns the one write connection and commits the requests that wait (the intake's commands, the forwarder's
 * claims and settles, admin decisions, purges, the marks of published receipts) in one transaction, each request in a
 * savepoint of its own, one fsync for all; callers block until their request is committed.
 *
 * <p>Persistence style, one way: <b>every statement is plain JDBC on {@link org.edgebridge.outbox.NamedStatements}</b>:
 * prepared once per SQL text and kept for the connection's life, its {@code :name} parameters found once and bound
 * by name, rows read by column name into records ({@link org.edgebridge.outbox.OutboxRows}). The writer's connection
 * has one such cache for everything it runs (the intake's insert, the claim, the settle, the desks' decisions,
 * purges, the transaction's BEGIN, savepoints and COMMIT); a read outside the writer opens a connection and a cache
 * for the call ({@link org.edgebridge.outbox.OutboxReading}), as does Flyway's callback
 * ({@link org.edgebridge.outbox.V1ChecksumRepair}) on Flyway's connection. Jdbi only opens and closes connections.
 * The exceptions, none with a parameter: the PRAGMAs that set up a connection or the file, and the incremental vacuum,
 * which a plain {@code Statement} runs to its end ({@link org.edgebridge.outbox.IncrementalVacuum},
 * {@link org.edgebridge.outbox.OutboxDatabase}, {@link org.edgebridge.outbox.Outbox#giveBackFreePages}).
 * Why not Jdbi's fluent API: on the hot path it cost more CPU than SQLite's own work (docs/BENCHMARKS.md), and
 * two styles side by side had made four statement caches on one connection and a statement shared only because
 * SQLite happened to number its parameters alike.
 *
 * <p>SQL text, one holder per role, every statement a constant (or one of a few fixed texts a method builds): {@link
 * org.edgebridge.outbox.IntakeSql} (the
 * intake's), {@link org.edgebridge.outbox.ForwarderSql} (claim, settle, releases, expiry, republishing),
 * {@link org.edgebridge.outbox.AdminSql} (the desks and the admin's reads), {@link org.edgebridge.outbox.UpkeepSql}
 * (retention, free pages, checkpoints, probes, the V1 repair) and {@link org.edgebridge.outbox.OutboxSql}, what they
 * share (fragments, the writer's transaction, a command by key or id, history lines, receipt marks).
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
