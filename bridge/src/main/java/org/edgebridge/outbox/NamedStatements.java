package org.edgebridge.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The outbox's one way to run SQL: plain JDBC statements of one connection, each prepared once per SQL text and kept
 * for the connection's life, with parameters bound by name. A statement's {@code :name}s are found once, when it is
 * first prepared (outside quoted text), and each distinct name becomes one numbered parameter ({@code ?1}, {@code ?2},
 * …, in the order the names first appear): binding is a map look-up, nothing is parsed again, and no statement relies
 * on how SQLite would have numbered the names itself. Why plain JDBC and not Jdbi: {@code package-info}.
 *
 * <p>The write connection has one for its life ({@link WriterConnection}); a read opens a connection and one of these
 * for the call ({@link OutboxReading}). Not thread-safe: one thread at a time. A statement is handed out cleared
 * (no parameter, no batch left from its last use): run it to the end before asking for the same SQL again.
 */
final class NamedStatements implements AutoCloseable {
    /** Reads one row of a result. */
    @FunctionalInterface
    interface Row<T> {
        T read(ResultSet rs) throws SQLException;
    }

    /** A kept statement and the number of each of its parameters. */
    static final class Named {
        private final PreparedStatement statement;
        private final Map<String, Integer> numbers;

        private Named(PreparedStatement statement, Map<String, Integer> numbers) {
            this.statement = statement;
            this.numbers = numbers;
        }

        Named set(String name, @Nullable Object value) throws SQLException {
            Integer number = numbers.get(name);
            if (number == null) {
                throw new IllegalArgumentException("no parameter :" + name);
            }
            statement.setObject(number, value);
            return this;
        }

        /** Adds the parameters set to the statement's batch. */
        void addBatch() throws SQLException {
            statement.addBatch();
        }

        /** Runs the batch: the rows each set of parameters changed, in order. */
        int[] runBatch() throws SQLException {
            return statement.executeBatch();
        }

        /** Runs a statement that returns no rows. */
        void run() throws SQLException {
            statement.execute();
        }

        /** Runs an update: the rows it changed. */
        int update() throws SQLException {
            return statement.executeUpdate();
        }

        /** Every row of the result. */
        <T> List<T> list(Row<T> row) throws SQLException {
            List<T> out = new ArrayList<>();
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    out.add(row.read(rs));
                }
            }
            return out;
        }

        /** The first row of the result, if any. */
        <T> Optional<T> first(Row<T> row) throws SQLException {
            try (ResultSet rs = statement.executeQuery()) {
                return rs.next() ? Optional.ofNullable(row.read(rs)) : Optional.empty();
            }
        }

        /** The first row of a result that always has one (a count, {@code RETURNING}). */
        <T> T one(Row<T> row) throws SQLException {
            try (ResultSet rs = statement.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("no row returned");
                }
                return row.read(rs);
            }
        }
    }

    private final Connection connection;
    private final Map<String, Named> kept = new HashMap<>();

    NamedStatements(Connection connection) {
        this.connection = connection;
    }

    /** The kept statement of this SQL, its parameters and batch cleared; prepared on its first use. */
    Named get(String sql) throws SQLException {
        Named named = kept.get(sql);
        if (named == null) {
            Map<String, Integer> numbers = new HashMap<>();
            String numbered = numbered(sql, numbers);
            named = new Named(connection.prepareStatement(numbered), numbers);
            kept.put(sql, named);
        } else {
            named.statement.clearParameters();
            named.statement.clearBatch();
        }
        return named;
    }

    /** The connection, for what is not a statement with parameters (a PRAGMA run to its end). */
    Connection connection() {
        return connection;
    }

    /**
     * {@code sql} with each {@code :name} outside quotes replaced by {@code ?N}, N the name's number (from 1, in the
     * order the names first appear), which is put into {@code numbers}.
     */
    static String numbered(String sql, Map<String, Integer> numbers) {
        StringBuilder out = new StringBuilder(sql.length());
        char quote = 0;
        int i = 0;
        while (i < sql.length()) {
            char ch = sql.charAt(i);
            if (quote != 0) {
                quote = ch == quote ? 0 : quote; // a doubled quote closes and opens again: the same text
            } else if (ch == '\'' || ch == '"') {
                quote = ch;
            } else if (ch == ':' && i + 1 < sql.length() && Character.isLetter(sql.charAt(i + 1))) {
                int end = i + 1;
                while (end < sql.length() && (Character.isLetterOrDigit(sql.charAt(end)) || sql.charAt(end) == '_')) {
                    end++;
                }
                String name = sql.substring(i + 1, end);
                int number = numbers.computeIfAbsent(name, n -> numbers.size() + 1);
                out.append('?').append(number);
                i = end;
                continue;
            }
            out.append(ch);
            i++;
        }
        return out.toString();
    }

    /** Statements kept now. */
    int kept() {
        return kept.size();
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
