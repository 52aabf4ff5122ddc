package org.edgebridge.outbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.sql.Statement;
import org.flywaydb.core.Flyway;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * Opens the outbox file: SQLite in WAL mode with {@code synchronous=FULL} (a committed transaction survives a power
 * cut), a 30 s busy timeout, foreign keys on, write transactions begun IMMEDIATE; the schema migrated by Flyway from
 * {@code db/migration} (the repository's {@code sql/}); Jdbi as the source of connections (no SQL runs through its API:
 * {@code package-info}).
 */
final class OutboxDatabase {
    /**
     * A write connection checkpoints inside its commit only once the log holds this many pages (~40 MB; SQLite's
     * default is 1,000): {@link WalCheckpointer} checkpoints long before, off the writer's transactions.
     */
    static final int WRITER_CHECKPOINT_PAGES = 10_000;

    private OutboxDatabase() {}

    /** A handle for write transactions (the intake writer's, the outbox's write handle). */
    static Handle openWriter(Jdbi jdbi) {
        Handle handle = jdbi.open();
        try (Statement s = handle.getConnection().createStatement()) {
            s.execute(UpkeepSql.writerCheckpointAt(WRITER_CHECKPOINT_PAGES));
        } catch (SQLException | RuntimeException e) {
            handle.close();
            throw e instanceof RuntimeException re
                    ? re
                    : new IllegalStateException("cannot open the outbox's write connection: " + e.getMessage(), e);
        }
        return handle;
    }

    static Jdbi open(Path file) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
        } catch (IOException e) {
            throw new IllegalStateException(
                    "cannot create the outbox directory for " + file + ": " + e.getMessage(), e);
        }
        SQLiteConfig config = new SQLiteConfig();
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
        config.setBusyTimeout(30_000);
        config.enforceForeignKeys(true);
        config.setTransactionMode(SQLiteConfig.TransactionMode.IMMEDIATE);
        SQLiteDataSource dataSource = new SQLiteDataSource(config);
        dataSource.setUrl("jdbc:sqlite:" + file.toAbsolutePath());
        IncrementalVacuum.switchOn(dataSource, file);
        Flyway.configure()
                .dataSource(dataSource)
                .locations("classpath:db/migration")
                .failOnMissingLocations(true)
                .callbacks(new V1ChecksumRepair())
                .load()
                .migrate();
        return Jdbi.create(dataSource);
    }
}
