package org.edgebridge.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.time.Clock;
import java.time.Instant;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.StatementContext;
import org.jdbi.v3.core.statement.StatementCustomizer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The intake's writer prepares its statements once and runs them again and again: why intake (B1) is fast. */
class CommandWriterTest {
    @TempDir
    Path dir;

    @Test
    void every_command_after_the_first_runs_on_statements_prepared_before() {
        Path file = dir.resolve("outbox.db");
        Outbox.open(file, Clock.systemUTC()).close();
        Jdbi jdbi = OutboxRows.configure(Jdbi.create("jdbc:sqlite:" + file));
        Set<PreparedStatement> executed = Collections.newSetFromMap(new IdentityHashMap<>());
        int[] runs = {0};
        jdbi.addCustomizer(new StatementCustomizer() {
            @Override
            public void beforeExecution(PreparedStatement statement, StatementContext ctx) {
                executed.add(statement);
                runs[0]++;
            }
        });
        try (CommandWriter writer = new CommandWriter(jdbi)) {
            for (int i = 1; i <= 20; i++) {
                List<StoreResult> r = writer.store(List.of(OutboxFixture.command("dev", "C-" + i, 0, Instant.now())), 100);
                assertThat(r.get(0)).isInstanceOf(StoreResult.Stored.class);
            }
            assertThat(writer.store(List.of(OutboxFixture.command("dev", "C-1", 0, Instant.now())), 100).get(0))
                    .isInstanceOf(StoreResult.AlreadyStored.class);
        }
        assertThat(runs[0]).isEqualTo(20 * 5 + 3);
        assertThat(executed).as("BEGIN IMMEDIATE, find, next sequence, insert, COMMIT: each prepared once").hasSize(5);
    }
}
