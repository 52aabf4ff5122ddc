package org.edgebridge.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
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

    private Path copyOf(String fixture) throws Exception {
        Path file = dir.resolve("outbox.db");
        try (InputStream in = getClass().getResourceAsStream("/outbox-fixtures/" + fixture)) {
            assertThat(in).as(fixture).isNotNull();
            Files.copy(in, file);
        }
        return file;
    }

    @ParameterizedTest
    @ValueSource(strings = {"outbox-v1-first.db", "outbox-v1-edited.db"})
    void an_outbox_from_the_first_schema_migrates_forward_with_every_row_intact(String fixture) throws Exception {
        Outbox outbox = Outbox.open(copyOf(fixture), Clock.systemUTC());
        for (CommandState state : CommandState.values()) {
            assertThat(outbox.counts().count(state)).as(state.dbName()).isEqualTo(1);
        }
        assertThat(outbox.releaseAbandonedClaims()).isEqualTo(1);
        assertThat(outbox.find("dev", "C-4").orElseThrow().resultJson()).isEqualTo("{\"r\":3}");
        assertThat(outbox.find("dev", "C-3").orElseThrow().retryLaters()).isEqualTo(50);
        assertThat(outbox.unpublishedFinals(10)).extracting(CommandRecord::commandId).containsExactly("C-6");
        assertThat(outbox.history(outbox.find("dev", "C-1").orElseThrow().id())).hasSize(1);
        assertThat(outbox.claim(10, 1 << 20, Long.MAX_VALUE, "b")).extracting(ClaimedEvent::commandId)
                .as("C-1 and C-2 pending; C-3 parked holds the rest of the device back").containsExactly("C-1", "C-2");
        assertThat(outbox.openCount()).isEqualTo(3);
        assertThat(outbox.schemaVersion()).isEqualTo("2");
        assertThat(indexes(outbox.file())).contains("commands_state");
    }

    private static java.util.List<String> indexes(Path file) throws Exception {
        try (var c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + file);
                var rs = c.createStatement().executeQuery("SELECT name FROM sqlite_master WHERE type = 'index'")) {
            java.util.List<String> names = new java.util.ArrayList<>();
            while (rs.next()) {
                names.add(rs.getString(1));
            }
            return names;
        }
    }
}
