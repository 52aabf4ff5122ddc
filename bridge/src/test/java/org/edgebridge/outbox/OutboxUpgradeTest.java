package org.edgebridge.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Clock;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteDataSource;

/** The current version opens an outbox made by the first migration, with rows in every state, and loses nothing. */
class OutboxUpgradeTest {
    @TempDir
    Path dir;

    @Test
    void an_outbox_from_the_first_schema_migrates_forward_with_every_row_intact() throws Exception {
        Path file = dir.resolve("outbox.db");
        SQLiteDataSource ds = new SQLiteDataSource();
        ds.setUrl("jdbc:sqlite:" + file);
        Flyway.configure().dataSource(ds).locations("classpath:db/migration").target("1").load().migrate();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
            s.execute("INSERT INTO devices VALUES ('dev', 6, 0, 0)");
            String[] states = {"pending", "inflight", "parked", "accepted", "duplicate", "rejected"};
            for (int i = 0; i < states.length; i++) {
                boolean fin = i >= 3;
                s.execute("INSERT INTO commands (client_id, command_id, sequence, topic, type, payload, payload_sha256, "
                        + "received_at, state, attempts, final_at, receipt_published, code, result) VALUES ('dev', 'C-" + (i + 1)
                        + "', " + (i + 1) + ", 'devices/dev/commands/t', 't', x'7b7d', 'sha', 1000, '" + states[i] + "', 1, "
                        + (fin ? "2000" : "NULL") + ", " + (i == 5 ? 0 : 1) + ", " + (i == 5 ? "'sim_rejected'" : "NULL") + ", "
                        + (fin ? "'{\"r\":" + i + "}'" : "NULL") + ")");
                s.execute("INSERT INTO command_history (command, at, kind) VALUES (" + (i + 1) + ", 1500, 'attempt')");
            }
        }

        Outbox outbox = Outbox.open(file, Clock.systemUTC());
        for (CommandState state : CommandState.values()) {
            assertThat(outbox.counts().count(state)).as(state.dbName()).isEqualTo(1);
        }
        assertThat(outbox.releaseAbandonedClaims()).isEqualTo(1);
        assertThat(outbox.find("dev", "C-4").orElseThrow().resultJson()).isEqualTo("{\"r\":3}");
        assertThat(outbox.unpublishedFinals(10)).extracting(CommandRecord::commandId).containsExactly("C-6");
        assertThat(outbox.history(outbox.find("dev", "C-1").orElseThrow().id())).hasSize(1);
        assertThat(outbox.claim(10, 1 << 20, Long.MAX_VALUE, "b")).extracting(ClaimedEvent::commandId)
                .as("C-1 and C-2 pending; C-3 parked holds the rest of the device back").containsExactly("C-1", "C-2");
        assertThat(outbox.openCount()).isEqualTo(3);
    }
}
