package org.edgebridge.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The outbox's writers leave checkpoints to the checkpointer's thread; against a real SQLite file. */
class WalCheckpointerTest {
    @TempDir
    Path dir;

    /**
     * Stores commands of ~3 KB, 50 per transaction, until the log file holds more than {@code pages} pages, or three
     * times as many pages were written (a log that checkpoints on its own stays small).
     */
    private static void fillLog(Outbox outbox, long pages) {
        int n = 0;
        long logBytes = 0;
        while (logBytes < pages * 4096 && (long) n * 3_000 < 3 * pages * 4096) {
            List<NewCommand> batch = new ArrayList<>();
            for (int i = 0; i < 50; i++, n++) {
                batch.add(OutboxFixture.command("dev-" + (n % 7), "c-" + n, 3_000, Instant.now()));
            }
            outbox.store(batch);
            logBytes = wal(outbox).toFile().length();
        }
    }

    private static Path wal(Outbox outbox) {
        return outbox.file().resolveSibling(outbox.file().getFileName() + "-wal");
    }

    @Test
    void a_writer_does_not_checkpoint_inside_its_commit_below_the_fallback() {
        Outbox outbox = Outbox.open(dir.resolve("outbox.db"), Clock.systemUTC());
        fillLog(outbox, 3_000); // SQLite's own default checkpoints every 1,000 pages
        CheckpointConnection.Checkpoint c = outbox.checkpointPassive();
        assertThat(c.logPages())
                .as("the log grew past 1,000 pages: no commit checkpointed it")
                .isGreaterThan(2_000)
                .isLessThan(OutboxDatabase.WRITER_CHECKPOINT_PAGES);
        assertThat(c.pagesCopied())
                .as("a passive checkpoint with no writer running copies it all")
                .isEqualTo(c.logPages());
        outbox.close();
    }

    @Test
    void the_checkpointer_copies_the_log_while_commands_are_written_and_the_log_starts_over() throws Exception {
        Outbox outbox = Outbox.open(dir.resolve("outbox.db"), Clock.systemUTC());
        try (WalCheckpointer checkpointer = new WalCheckpointer(outbox)) {
            checkpointer.start();
            fillLog(outbox, 1_500);
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                WalCheckpointer.Status s = checkpointer.status();
                return s.logPages() >= 1_500 && s.pagesInFile() == s.logPages();
            });
            long walBytes = Files.size(wal(outbox));
            int[] n = {0};
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                // the first write after a complete checkpoint starts the log over
                outbox.store(List.of(OutboxFixture.command("dev-x", "after-" + n[0]++, 0, Instant.now())));
                WalCheckpointer.Status s = checkpointer.status();
                return s.logPages() > 0 && s.logPages() < 100;
            });
            assertThat(Files.size(wal(outbox)))
                    .as("the log is reused from its start (or cut while idle), not grown")
                    .isLessThanOrEqualTo(walBytes);
        }
        assertThat(outbox.openCount()).isGreaterThan(500);
        outbox.close();
        Outbox reopened = Outbox.open(dir.resolve("outbox.db"), Clock.systemUTC());
        assertThat(reopened.openCount()).as("every command is in the file").isEqualTo(outbox.openCount());
        reopened.close();
    }

    @Test
    void an_idle_log_file_left_large_by_a_burst_is_cut_to_zero_and_nothing_is_lost() throws Exception {
        Outbox outbox = Outbox.open(dir.resolve("outbox.db"), Clock.systemUTC());
        fillLog(outbox, 2_000); // 8 MB: past the writers' 1,000 pages, which SQLite would keep for good
        assertThat(Files.size(wal(outbox))).isGreaterThan(WalCheckpointer.TRUNCATE_ABOVE_BYTES);
        try (WalCheckpointer checkpointer = new WalCheckpointer(outbox)) {
            checkpointer.start();
            // the checkpointer counts the cut just after the file is cut: wait for both
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> Files.size(wal(outbox)) == 0
                            && checkpointer.status().logTruncations() > 0);
            outbox.store(List.of(OutboxFixture.command("dev-x", "after-cut", 10, Instant.now())));
        }
        long open = outbox.openCount();
        outbox.close();
        Outbox reopened = Outbox.open(dir.resolve("outbox.db"), Clock.systemUTC());
        assertThat(reopened.openCount()).as("every command is in the file").isEqualTo(open);
        reopened.close();
    }

    @Test
    void cutting_the_log_gives_up_at_once_while_a_reader_uses_it_and_the_writer_is_not_held() throws Exception {
        Outbox outbox = Outbox.open(dir.resolve("outbox.db"), Clock.systemUTC());
        fillLog(outbox, 1_200);
        try (Connection reader = DriverManager.getConnection("jdbc:sqlite:" + outbox.file())) {
            reader.setAutoCommit(false);
            try (ResultSet rs = reader.createStatement().executeQuery("SELECT count(*) FROM commands")) {
                assertThat(rs.next()).isTrue(); // a read transaction: its snapshot is in the log
            }
            outbox.store(List.of(OutboxFixture.command("dev-x", "while-reading", 10, Instant.now())));
            assertThat(outbox.truncateLogIfFree())
                    .as("a reader of the log: not cut, no waiting")
                    .isFalse();
            assertThat(Files.size(wal(outbox))).isPositive();
            outbox.store(List.of(OutboxFixture.command("dev-x", "after-try", 10, Instant.now())));
            reader.rollback();
        }
        assertThat(outbox.truncateLogIfFree()).as("no reader: cut").isTrue();
        assertThat(Files.size(wal(outbox))).isZero();
        outbox.close();
    }
}
