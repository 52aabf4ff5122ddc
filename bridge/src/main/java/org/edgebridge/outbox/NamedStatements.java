package org.edgebridge.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Plain JDBC statements of one connection, prepared once and kept, for the statements that run for every event of
 * every request ({@link Claimer}); the statements of {@link OutboxSql} keep their {@code :name} parameters and are
 * bound by name here. Why not Jdbi there: a claim through Jdbi cost about 60 % more CPU (its per-statement context,
 * binding and row-mapper specialisation cost more than SQLite's own work; docs/BENCHMARKS.md), and the claim runs on
 * the outbox writer, which intake and forwarder share. Not thread-safe: used on the writer thread only.
 */
final class NamedStatements implements AutoCloseable {
    private static final Pattern PARAMETER = Pattern.compile(":([A-Za-z]+)");

    /** A kept statement and where each of its parameters goes. */
    static final class Named {
        private final PreparedStatement statement;
        private final Map<String, List<Integer>> positions;

        private Named(PreparedStatement statement, Map<String, List<Integer>> positions) {
            this.statement = statement;
            this.positions = positions;
        }

        Named set(String name, @Nullable Object value) throws SQLException {
            List<Integer> at = positions.get(name);
            if (at == null) {
                throw new IllegalArgumentException("no parameter :" + name);
            }
            for (int i : at) {
                statement.setObject(i, value);
            }
            return this;
        }

        PreparedStatement statement() {
            return statement;
        }
    }

    private final Connection connection;
    private final Map<String, Named> kept = new HashMap<>();

    NamedStatements(Connection connection) {
        this.connection = connection;
    }

    /** The kept statement of this SQL, its parameters and batch cleared. */
    Named get(String sql) throws SQLException {
        Named named = kept.get(sql);
        if (named == null) {
            Map<String, List<Integer>> positions = new HashMap<>();
            Matcher m = PARAMETER.matcher(sql);
            StringBuilder positional = new StringBuilder();
            int index = 0;
            while (m.find()) {
                positions.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(++index);
                m.appendReplacement(positional, "?");
            }
            m.appendTail(positional);
            named = new Named(connection.prepareStatement(positional.toString()), positions);
            kept.put(sql, named);
        } else {
            named.statement.clearParameters();
            named.statement.clearBatch();
        }
        return named;
    }

    @Override
    public void close() {
        for (Named n : kept.values()) {
            try {
                n.statement.close();
            } catch (SQLException e) {
                // the connection goes with its statements
            }
        }
        kept.clear();
    }
}
