package org.edgebridge.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Named parameters on kept plain JDBC statements, against a real SQLite file. */
class NamedStatementsTest {
    @TempDir
    Path dir;

    @Test
    void a_name_binds_every_place_it_appears_and_a_kept_statement_starts_clean() throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("t.db"));
                NamedStatements sql = new NamedStatements(c)) {
            sql.get("CREATE TABLE t (a INTEGER NOT NULL, b TEXT, c INTEGER)").run();
            String insert = "INSERT INTO t (a, b, c) VALUES (:n, :text, :n + 1)";
            NamedStatements.Named first = sql.get(insert);
            first.set("n", 1).set("text", "x").addBatch();
            first.set("n", 5).set("text", null).addBatch();
            assertThat(first.runBatch()).containsExactly(1, 1);
            NamedStatements.Named again = sql.get(insert);
            assertThat(again).as("kept").isSameAs(first);
            assertThatThrownBy(again::run)
                    .as("nothing left bound from the last use: a NOT NULL column gets NULL")
                    .isInstanceOf(SQLException.class);
            again.set("n", 9).set("text", "y").run();

            assertThat(sql.get("SELECT group_concat(a || ':' || ifnull(b, '-') || ':' || c, ' ') AS rows FROM t")
                            .<String>one(rs -> rs.getString("rows")))
                    .isEqualTo("1:x:2 5:-:6 9:y:10");
            assertThat(sql.get("SELECT a FROM t WHERE a > :min ORDER BY a")
                            .set("min", 1)
                            .list(rs -> rs.getInt("a")))
                    .containsExactly(5, 9);
            assertThat(sql.get("SELECT a FROM t WHERE a = :a").set("a", 2).first(rs -> rs.getInt("a")))
                    .isEmpty();
            assertThat(sql.kept()).isEqualTo(5);
            assertThatThrownBy(() -> sql.get(insert).set("m", 1)).hasMessageContaining(":m");
        }
    }

    @Test
    void each_distinct_name_is_one_numbered_parameter_and_quoted_text_is_left_alone() {
        Map<String, Integer> numbers = new HashMap<>();
        String numbered = NamedStatements.numbered(
                "UPDATE t SET b = 'at 12:30: :not' , \"x:y\" = :at_2 WHERE a = :id OR c = :at_2 OR a = :id", numbers);
        assertThat(numbered)
                .isEqualTo("UPDATE t SET b = 'at 12:30: :not' , \"x:y\" = ?1 WHERE a = ?2 OR c = ?1 OR a = ?2");
        assertThat(numbers).containsEntry("at_2", 1).containsEntry("id", 2).hasSize(2);
    }
}
