package org.edgebridge.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
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
            c.createStatement().execute("CREATE TABLE t (a INTEGER NOT NULL, b TEXT, c INTEGER)");
            String insert = "INSERT INTO t (a, b, c) VALUES (:n, :text, :n + 1)";
            NamedStatements.Named first = sql.get(insert);
            first.set("n", 1).set("text", "x").statement().addBatch();
            first.set("n", 5).set("text", null).statement().addBatch();
            first.statement().executeBatch();
            NamedStatements.Named again = sql.get(insert);
            assertThat(again.statement()).as("kept").isSameAs(first.statement());
            assertThatThrownBy(() -> again.statement().execute())
                    .as("nothing left bound from the last use")
                    .isInstanceOf(SQLException.class);
            again.set("n", 9).set("text", "y").statement().execute();

            try (ResultSet rs = c.createStatement()
                    .executeQuery("SELECT group_concat(a || ':' || ifnull(b, '-') || ':' || c, ' ') FROM t")) {
                assertThat(rs.getString(1)).isEqualTo("1:x:2 5:-:6 9:y:10");
            }
            assertThatThrownBy(() -> sql.get(insert).set("m", 1)).hasMessageContaining(":m");
        }
    }
}
