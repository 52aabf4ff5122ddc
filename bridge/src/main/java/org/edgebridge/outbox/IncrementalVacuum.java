package org.edgebridge.outbox;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts the outbox file in {@code auto_vacuum=INCREMENTAL} mode, so that the pages of purged rows and dropped
 * payloads can be given back to the file system ({@link Outbox#giveBackFreePages}) instead of staying in SQLite's
 * freelist for good. SQLite switches an existing file only with a VACUUM, which rewrites it once (it needs free disk
 * about the file's size, and time: a few seconds per 100 MB); a new file switches at once. Run at open, before Flyway
 * and before any other connection. If the VACUUM fails (no room for the copy) the bridge starts all the same, logs it,
 * and tries again at the next start.
 */
final class IncrementalVacuum {
    private static final Logger LOG = LoggerFactory.getLogger(IncrementalVacuum.class);
    /** {@code PRAGMA auto_vacuum}'s value for INCREMENTAL. */
    static final int INCREMENTAL = 2;

    private IncrementalVacuum() {}

    static void switchOn(DataSource dataSource, Path file) {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            if (mode(s) == INCREMENTAL) {
                return;
            }
            long start = System.nanoTime();
            s.execute(UpkeepSql.AUTO_VACUUM_INCREMENTAL);
            s.execute(UpkeepSql.VACUUM);
            if (mode(s) != INCREMENTAL) {
                LOG.warn("the outbox {} did not switch to auto_vacuum=INCREMENTAL; free pages stay in the file", file);
                return;
            }
            long ms = (System.nanoTime() - start) / 1_000_000;
            if (ms > 100) {
                LOG.info("outbox {} switched to auto_vacuum=INCREMENTAL (a one-time VACUUM, {} ms)", file, ms);
            }
        } catch (SQLException e) {
            LOG.warn(
                    "could not switch the outbox {} to auto_vacuum=INCREMENTAL ({}); it works as before, free pages "
                            + "stay in the file; the next start tries again",
                    file,
                    e.getMessage());
        }
    }

    private static int mode(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery(UpkeepSql.AUTO_VACUUM)) {
            return rs.next() ? rs.getInt(1) : 0;
        }
    }
}
