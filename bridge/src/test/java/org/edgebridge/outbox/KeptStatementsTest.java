package org.edgebridge.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.StatementContext;
import org.jdbi.v3.core.statement.StatementCustomizer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Jdbi statements on a handle that keeps them, against a real SQLite file. */
class KeptStatementsTest {
    @TempDir
    Path dir;

    Handle handle;
    KeptStatements kept;
    /** Every statement Jdbi executed, in order. */
    List<PreparedStatement> executed = new ArrayList<>();

    @BeforeEach
    void open() {
        handle = Jdbi.create("jdbc:sqlite:" + dir.resolve("t.db")).open();
        kept = KeptStatements.keepOn(handle);
        handle.addCustomizer(new StatementCustomizer() {
            @Override
            public void beforeExecution(PreparedStatement stmt, StatementContext ctx) {
                executed.add(stmt);
            }
        });
        handle.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
        executed.clear();
    }

    @AfterEach
    void close() {
        handle.close();
    }

    private int count(String v) {
        return handle.createQuery("SELECT COUNT(*) FROM t WHERE v = :v")
                .bind("v", v)
                .mapTo(Integer.class)
                .one();
    }

    @Test
    void the_same_sql_runs_on_the_same_statement_with_fresh_parameters() {
        var insert = handle.prepareBatch("INSERT INTO t (v) VALUES (:v)");
        insert.bind("v", "a").add().bind("v", "a").add().execute();
        handle.prepareBatch("INSERT INTO t (v) VALUES (:v)")
                .bind("v", "b")
                .add()
                .execute();

        assertThat(count("a")).isEqualTo(2);
        assertThat(count("b")).as("the second batch ran only its own row").isEqualTo(1);
        assertThat(count("c")).isZero();
        assertThat(executed.get(0)).as("the batch's statement, kept").isSameAs(executed.get(1));
        assertThat(executed.get(2))
                .as("the query's statement, kept")
                .isSameAs(executed.get(3))
                .isSameAs(executed.get(4));
        assertThat(executed.get(2)).isNotSameAs(executed.get(0));
        assertThat(kept.kept()).isEqualTo(3); // the CREATE TABLE, the insert, the query
    }

    @Test
    void a_nested_use_of_the_same_sql_gets_a_statement_of_its_own() {
        handle.prepareBatch("INSERT INTO t (v) VALUES (:v)")
                .bind("v", "1")
                .add()
                .bind("v", "2")
                .add()
                .bind("v", "3")
                .add()
                .execute();
        String sql = "SELECT v FROM t WHERE id >= :from ORDER BY id";
        List<String> pairs = new ArrayList<>();
        try (var outer = handle.createQuery(sql).bind("from", 1).mapTo(String.class).stream()) {
            outer.forEach(v -> pairs.add(v
                    + handle.createQuery(sql)
                            .bind("from", 3)
                            .mapTo(String.class)
                            .one()));
        }
        assertThat(pairs)
                .as("the inner query did not disturb the outer one's rows")
                .containsExactly("13", "23", "33");
        assertThat(executed.get(2))
                .as("the first inner query, while the outer one's rows were open")
                .isNotSameAs(executed.get(1));
    }

    @Test
    void a_failed_statement_leaves_nothing_bound_for_the_next_use() {
        handle.execute("CREATE UNIQUE INDEX t_v ON t (v)");
        String sql = "INSERT INTO t (v) VALUES (:v)";
        handle.createUpdate(sql).bind("v", "x").execute();
        assertThatThrownBy(() -> handle.createUpdate(sql).bind("v", "x").execute())
                .hasMessageContaining("UNIQUE");
        handle.createUpdate(sql).bind("v", "y").execute();
        assertThat(count("x")).isEqualTo(1);
        assertThat(count("y")).isEqualTo(1);
    }

    @Test
    void at_most_max_kept_statements_are_kept_and_the_rest_are_closed() throws SQLException {
        for (int i = 0; i < KeptStatements.MAX_KEPT + 10; i++) {
            handle.createQuery("SELECT " + i).mapTo(Integer.class).one();
        }
        assertThat(kept.kept()).isEqualTo(KeptStatements.MAX_KEPT);
        PreparedStatement first = executed.get(0);
        PreparedStatement last = executed.get(executed.size() - 1);
        assertThat(first.isClosed()).as("the least recently used, closed").isTrue();
        assertThat(last.isClosed()).isFalse();

        handle.close();
        assertThat(last.isClosed())
                .as("the handle's close closes what was kept")
                .isTrue();
        assertThat(kept.kept()).isZero();
    }
}
