package org.edgebridge.outbox;

import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.DefaultStatementBuilder;
import org.jdbi.v3.core.statement.StatementBuilder;
import org.jdbi.v3.core.statement.StatementContext;

/**
 * A Jdbi {@link StatementBuilder} for one long-lived handle that keeps its prepared statements, by SQL text, instead of
 * preparing each statement again on every use and closing it after. SQLite parses and plans a statement at each
 * prepare; the forwarder's write handle ran a dozen of them per request (claim, settle, marks), and that, with
 * Jdbi's own per-statement work, was most of the forwarder's CPU at 1,000 commands/s on a 2-core box (docs/BENCHMARKS.md).
 *
 * <p>A statement handed out is not handed out again until Jdbi gives it back ({@link #close(Connection, String,
 * Statement)}): a nested use of the same SQL gets a statement of its own. At most {@link #MAX_KEPT} statements are
 * kept, the least recently used closed first. Not thread-safe: a handle is used by one thread at a time (the outbox's
 * write handle only on the outbox writer's thread).
 */
final class KeptStatements implements StatementBuilder {
    static final int MAX_KEPT = 64;

    private final StatementBuilder plain = new DefaultStatementBuilder();

    private KeptStatements() {}

    /**
     * Makes {@code handle} keep its statements from now on; they are closed with it. (Jdbi closes, with a handle, the
     * builder the handle was opened with, not one set later: hence the cleanable.)
     */
    static KeptStatements keepOn(Handle handle) {
        KeptStatements kept = new KeptStatements();
        handle.setStatementBuilder(kept);
        handle.addCleanable(() -> kept.close(handle.getConnection()));
        return kept;
    }
    /** Statements not in use, by SQL text, least recently used first. */
    private final LinkedHashMap<String, PreparedStatement> idle = new LinkedHashMap<>(32, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, PreparedStatement> eldest) {
            if (size() <= MAX_KEPT) {
                return false;
            }
            closeQuietly(eldest.getValue());
            return true;
        }
    };
    /** Statements handed out, with their SQL text. */
    private final Map<Statement, String> inUse = new IdentityHashMap<>();

    @Override
    public Statement create(Connection conn, StatementContext ctx) throws SQLException {
        return plain.create(conn, ctx);
    }

    @Override
    public PreparedStatement create(Connection conn, String sql, StatementContext ctx) throws SQLException {
        if (ctx.isReturningGeneratedKeys() || ctx.isConcurrentUpdatable()) {
            return plain.create(conn, sql, ctx);
        }
        PreparedStatement statement = idle.remove(sql);
        if (statement == null || statement.isClosed()) {
            statement = conn.prepareStatement(sql);
        }
        inUse.put(statement, sql);
        return statement;
    }

    @Override
    public CallableStatement createCall(Connection conn, String sql, StatementContext ctx) throws SQLException {
        return plain.createCall(conn, sql, ctx);
    }

    /** Jdbi is done with a statement: a kept one is cleared and kept; any other is closed. */
    @Override
    public void close(Connection conn, String sql, Statement statement) throws SQLException {
        String key = statement == null ? null : inUse.remove(statement);
        if (key == null) {
            plain.close(conn, sql, statement);
            return;
        }
        PreparedStatement kept = (PreparedStatement) statement;
        try {
            kept.clearParameters();
            kept.clearBatch();
        } catch (SQLException e) {
            closeQuietly(kept);
            throw e;
        }
        PreparedStatement replaced = idle.put(key, kept);
        if (replaced != null && replaced != kept) {
            closeQuietly(replaced);
        }
    }

    /** The handle closes: every statement goes. */
    @Override
    public void close(Connection conn) {
        idle.values().forEach(KeptStatements::closeQuietly);
        idle.clear();
        inUse.keySet().forEach(KeptStatements::closeQuietly);
        inUse.clear();
    }

    /** Statements kept for reuse now. */
    int kept() {
        return idle.size();
    }

    private static void closeQuietly(Statement statement) {
        try {
            statement.close();
        } catch (SQLException e) {
            // closing a statement of a connection that is going away; nothing to keep
        }
    }
}
