package org.edgebridge.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hot statements of the outbox use an index at 200,000 rows (ANALYZEd, 1,000 devices): no full scan of {@code commands} on any
 * path that runs per command or per batch. Checked with SQLite's own EXPLAIN QUERY PLAN on a real file.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OutboxQueryPlanTest {
    private static final int ROWS = 200_000;
    private static final int DEVICES = 1_000;

    String url;

    @BeforeAll
    void fill(@TempDir Path dir) throws SQLException {
        // per device: the oldest rows final, the newest 5 open
        int openPerDevice = 5;
        try (OutboxFixture fixture = OutboxFixture.at(dir.resolve("outbox.db"))) {
            fixture.backlog("cmd-", DEVICES, ROWS - openPerDevice * DEVICES, CommandState.ACCEPTED);
            fixture.backlog("open-", DEVICES, openPerDevice * DEVICES, CommandState.PENDING);
        }
        url = "jdbc:sqlite:" + dir.resolve("outbox.db");
        try (Connection c = DriverManager.getConnection(url);
                Statement s = c.createStatement()) {
            s.execute("ANALYZE");
        }
    }

    @Test
    void every_hot_statement_searches_an_index_instead_of_scanning_the_table() throws SQLException {
        // statement -> the index its plan must use
        Map<String, String[]> statements = new LinkedHashMap<>();
        statements.put("find by (clientId, commandId)", new String[] {OutboxSql.FIND, "sqlite_autoindex_commands_1"});
        statements.put("claim: heads", new String[] {ForwarderSql.CLAIM_HEADS, "commands_open"});
        statements.put("claim: run of one device", new String[] {ForwarderSql.CLAIM_RUN, "commands_open"});
        statements.put("count open", new String[] {AdminSql.COUNT_OPEN, "INDEX"});
        statements.put("oldest open", new String[] {AdminSql.OLDEST_OPEN, "INDEX"});
        statements.put(
                "unpublished finals: devices",
                new String[] {ForwarderSql.UNPUBLISHED_DEVICES, "commands_unpublished_device"});
        statements.put(
                "unpublished finals of a device",
                new String[] {ForwarderSql.UNPUBLISHED, "commands_unpublished_device"});
        statements.put("retention candidates", new String[] {UpkeepSql.PURGE_CANDIDATES, "commands_final_at"});
        statements.put("expiry: due", new String[] {ForwarderSql.EXPIRING, "commands_expiring"});
        statements.put(
                "expiry: unreported", new String[] {ForwarderSql.UNREPORTED_EXPIRIES, "commands_expiry_unreported"});
        try (Connection c = DriverManager.getConnection(url)) {
            for (Map.Entry<String, String[]> e : statements.entrySet()) {
                String sql = e.getValue()[0];
                List<String> plan = plan(c, sql);
                long start = System.nanoTime();
                run(c, sql);
                System.out.printf("%-32s %6.1f ms  %s%n", e.getKey(), (System.nanoTime() - start) / 1e6, plan);
                assertThat(plan).as(e.getKey()).anyMatch(line -> line.contains(e.getValue()[1]));
                assertThat(plan)
                        .as(e.getKey() + ": no full scan of commands")
                        .noneMatch(line -> line.matches("SCAN (commands|c|o)\\b.*") && !line.contains("INDEX"));
            }
            assertThat(plan(c, ForwarderSql.CLAIM_HEADS))
                    .as("claim visits the devices with open commands, one seek each")
                    .anyMatch(line -> line.startsWith("SCAN d USING") && line.contains("devices_with_open"))
                    .anyMatch(line -> line.contains("INTEGER PRIMARY KEY"));
        }
    }

    @Test
    void statements_on_a_list_of_ids_look_each_row_up_by_its_primary_key() throws SQLException {
        Map<String, String> statements = new LinkedHashMap<>();
        statements.put("claim: payloads", ForwarderSql.CLAIM_PAYLOADS);
        statements.put("settle: records by id", OutboxSql.BY_IDS);
        statements.put("mark published", OutboxSql.MARK_PUBLISHED);
        statements.put("purge commands", UpkeepSql.PURGE_COMMANDS);
        try (Connection c = DriverManager.getConnection(url)) {
            for (Map.Entry<String, String> e : statements.entrySet()) {
                List<String> lines = new ArrayList<>();
                try (PreparedStatement p = c.prepareStatement("EXPLAIN QUERY PLAN " + positional(e.getValue()))) {
                    p.setString(1, OutboxSql.idList(List.of(500L, 501L, 999_999L)));
                    try (ResultSet rs = p.executeQuery()) {
                        while (rs.next()) {
                            lines.add(rs.getString("detail"));
                        }
                    }
                }
                System.out.printf("%-32s %s%n", e.getKey(), lines);
                assertThat(lines)
                        .as(e.getKey())
                        .anyMatch(line -> line.matches("SEARCH commands USING INTEGER PRIMARY KEY.*"))
                        .noneMatch(line -> line.matches("SCAN commands\\b.*"));
            }
            try (PreparedStatement p = c.prepareStatement(positional(OutboxSql.BY_IDS))) {
                p.setString(1, OutboxSql.idList(List.of(1L, 2L, 3L)));
                int rows = 0;
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        assertThat(rs.getLong("id")).isEqualTo(++rows);
                    }
                }
                assertThat(rows).as("the rows of the three ids, no more").isEqualTo(3);
            }
        }
    }

    private static String positional(String sql) {
        return NamedStatements.numbered(sql, new java.util.HashMap<>());
    }

    private static List<String> plan(Connection c, String sql) throws SQLException {
        List<String> lines = new ArrayList<>();
        try (PreparedStatement p = c.prepareStatement("EXPLAIN QUERY PLAN " + positional(sql))) {
            bindSample(p);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    lines.add(rs.getString("detail"));
                }
            }
        }
        return lines;
    }

    private static void run(Connection c, String sql) throws SQLException {
        if (sql.startsWith("INSERT")) {
            return;
        }
        try (PreparedStatement p = c.prepareStatement(positional(sql))) {
            bindSample(p);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    rs.getObject(1);
                }
            }
        }
    }

    /** Plausible values for every parameter: a device, an id, times, limits. */
    private static void bindSample(PreparedStatement p) throws SQLException {
        int n = p.getParameterMetaData().getParameterCount();
        for (int i = 1; i <= n; i++) {
            p.setObject(i, i == 1 && n == 2 ? "dev-7" : (Object) 500L);
        }
    }
}
