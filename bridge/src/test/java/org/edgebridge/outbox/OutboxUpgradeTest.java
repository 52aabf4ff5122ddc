package org.edgebridge.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The current version opens real outbox files made by the first schema (test resources {@code outbox-fixtures/}:
 * made by Flyway with V1 and one row in every state, see {@code outbox-fixtures/README.md}), migrates them to the
 * newest version and loses nothing.
 */
class OutboxUpgradeTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"outbox-v1-first.db", "outbox-v1-edited.db"})
    void an_outbox_from_the_first_schema_migrates_forward_with_every_row_intact(String fixture) throws Exception {
        Outbox outbox = Outbox.open(OutboxFixture.copyOfResource(fixture, dir.resolve("outbox.db")), Clock.systemUTC());
        for (CommandState state : CommandState.values()) {
            assertThat(outbox.reads().counts().count(state)).as(state.dbName()).isEqualTo(1);
        }
        assertThat(outbox.releaseAbandonedClaims()).isEqualTo(1);
        assertThat(outbox.find("dev", "C-4").orElseThrow().resultJson()).isEqualTo("{\"r\":3}");
        assertThat(outbox.find("dev", "C-3").orElseThrow().retryLaters()).isEqualTo(50);
        assertThat(outbox.unpublishedFinals(10))
                .extracting(CommandRecord::commandId)
                .containsExactly("C-6");
        assertThat(outbox.reads()
                        .history(outbox.find("dev", "C-1").orElseThrow().id()))
                .hasSize(1);
        for (String id : query(outbox.file(), "SELECT id FROM commands")) {
            assertThat(outbox.reads().history(Long.parseLong(id)))
                    .as("the lines of command %s, read as they are", id)
                    .hasSize(Integer.parseInt(
                            query(outbox.file(), "SELECT COUNT(*) FROM command_history WHERE command = " + id)
                                    .get(0)));
        }
        assertThat(outbox.claim(10, 1 << 20, OutboxFixture.ROUGH_SIZE, Long.MAX_VALUE, "b"))
                .extracting(ClaimedEvent::commandId)
                .as("C-1 and C-2 pending; C-3 parked holds the rest of the device back")
                .containsExactly("C-1", "C-2");
        assertThat(outbox.openCount()).isEqualTo(3);
        assertThat(outbox.reads().schemaVersion()).isEqualTo("10");
        assertThat(query(outbox.file(), "SELECT open_count || '/' || open_bytes FROM devices WHERE client_id = 'dev'"))
                .as("V7 counts the device's open commands and their bytes")
                .containsExactly("3/"
                        + query(
                                        outbox.file(),
                                        "SELECT SUM(length(payload)) FROM commands WHERE state IN "
                                                + "('pending', 'inflight', 'parked')")
                                .get(0));
        assertThat(query(outbox.file(), "PRAGMA auto_vacuum"))
                .as("switched to INCREMENTAL by a one-time VACUUM")
                .containsExactly("2");
        assertThat(indexes(outbox.file()))
                .contains(
                        "commands_open",
                        "commands_unpublished_device",
                        "commands_state",
                        "commands_final_at",
                        "command_history_command",
                        "commands_expiring",
                        "commands_expiry_unreported")
                .as("V10 drops the index no statement reads, which every settle and published mark wrote")
                .doesNotContain("commands_unpublished");
        assertThat(outbox.expiries().unreported(10))
                .as("rows from before expiry need no report")
                .isEmpty();
        assertThat(query(outbox.file(), "SELECT \"table\" FROM pragma_foreign_key_list('command_history')"))
                .containsExactly("commands");
        assertThat(query(outbox.file(), "SELECT name FROM sqlite_sequence")).containsExactly("commands");
        StoreResult.Stored added = (StoreResult.Stored) outbox.store(List.of(new NewCommand(
                        "dev",
                        "C-7",
                        "devices/dev/commands/t",
                        "t",
                        "{}".getBytes(),
                        "sha-7",
                        java.time.Instant.now())))
                .get(0);
        assertThat(added.record().sequence()).isEqualTo(7);
        assertThat(added.record().id()).isEqualTo(7);
        assertThat(outbox.purgeFinalBefore(java.time.Instant.now(), 100))
                .as("the final rows, with their history")
                .isEqualTo(3);
    }

    private static java.util.List<String> indexes(Path file) throws Exception {
        return query(file, "SELECT name FROM sqlite_master WHERE type = 'index'");
    }

    private static java.util.List<String> query(Path file, String sql) throws Exception {
        try (var c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + file);
                var rs = c.createStatement().executeQuery(sql)) {
            java.util.List<String> names = new java.util.ArrayList<>();
            while (rs.next()) {
                names.add(rs.getString(1));
            }
            return names;
        }
    }
}
