package org.edgebridge.outbox;

import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import org.jdbi.v3.core.statement.StatementBuilder;
import org.jdbi.v3.core.statement.StatementContext;

/**
 * A Jdbi {@link StatementBuilder} for one long-lived handle that prepares each SQL text once and hands the same
 * {@link PreparedStatement} out again on every later use (Jdbi's default prepares, and closes, one per statement
 * run). The statements are closed with the handle's connection. Not thread-safe: one owner, as a handle has.
 */
final class StatementsPreparedOnce implements StatementBuilder {
    private final Map<String, PreparedStatement> prepared = new HashMap<>();

    @Override
    public Statement create(Connection connection, StatementContext ctx) throws SQLException {
        return connection.createStatement();
    }

    @Override
    public PreparedStatement create(Connection connection, String sql, StatementContext ctx) throws SQLException {
        PreparedStatement statement = prepared.get(sql);
        if (statement == null || statement.isClosed()) {
            statement = connection.prepareStatement(sql);
            prepared.put(sql, statement);
        } else {
            statement.clearParameters();
        }
        return statement;
    }

    @Override
    public CallableStatement createCall(Connection connection, String sql, StatementContext ctx) throws SQLException {
        return connection.prepareCall(sql);
    }

    /** Keeps the statements this builder prepared open for their next use; closes any other. */
    @Override
    public void close(Connection connection, String sql, Statement statement) throws SQLException {
        if (!prepared.containsValue(statement)) {
            statement.close();
        }
    }

    @Override
    public void close(Connection connection) {
        for (PreparedStatement statement : prepared.values()) {
            try {
                statement.close();
            } catch (SQLException ignored) {
                // the connection is being closed anyway
            }
        }
        prepared.clear();
    }
}
