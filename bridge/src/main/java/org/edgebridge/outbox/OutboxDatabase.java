package org.edgebridge.outbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.flywaydb.core.Flyway;
import org.jdbi.v3.core.Jdbi;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * Opens the outbox file: SQLite in WAL mode with {@code synchronous=FULL} (a committed transaction survives a power
 * cut), a 30 s busy timeout, foreign keys on, write transactions begun IMMEDIATE; the schema migrated by Flyway from
 * {@code db/migration} (the repository's {@code sql/}); Jdbi configured with the outbox's row mappers.
 */
final class OutboxDatabase {
    private OutboxDatabase() {}

    static Jdbi open(Path file) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
        } catch (IOException e) {
            throw new IllegalStateException("cannot create the outbox directory for " + file + ": " + e.getMessage(), e);
        }
        SQLiteConfig config = new SQLiteConfig();
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
        config.setBusyTimeout(30_000);
        config.enforceForeignKeys(true);
        config.setTransactionMode(SQLiteConfig.TransactionMode.IMMEDIATE);
        SQLiteDataSource dataSource = new SQLiteDataSource(config);
        dataSource.setUrl("jdbc:sqlite:" + file.toAbsolutePath());
        Flyway.configure()
                .dataSource(dataSource)
                .locations("classpath:db/migration")
                .failOnMissingLocations(true)
                .callbacks(new V1ChecksumRepair())
                .load()
                .migrate();
        return OutboxRows.configure(Jdbi.create(dataSource));
    }
}
