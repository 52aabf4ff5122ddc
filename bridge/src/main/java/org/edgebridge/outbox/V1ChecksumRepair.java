package org.edgebridge.outbox;

import java.sql.SQLException;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.callback.Callback;
import org.flywaydb.core.api.callback.Context;
import org.flywaydb.core.api.callback.Event;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets Flyway validate outboxes made by either form of {@code V1__outbox.sql}. V1 was edited after it had landed
 * (commit ea2f8e5 added the index {@code commands_state}), so sites hold databases whose history records the
 * checksum of the edited V1, and older ones that record the first V1's. V1 is back to its first form; before Flyway
 * validates, this callback rewrites the edited form's checksum to the first form's, and only that exact value:
 * any other mismatch still stops start-up, as it must. What the edit added is created by V2 where it is missing.
 */
final class V1ChecksumRepair implements Callback {
    private static final Logger LOG = LoggerFactory.getLogger(V1ChecksumRepair.class);
    /** Flyway's checksum of V1 as first landed (commit e2ddb8d), which is the file in sql/ again. */
    static final int FIRST_V1 = 730181764;
    /** Flyway's checksum of V1 as edited in commit ea2f8e5. */
    static final int EDITED_V1 = 1306080521;

    @Override
    public boolean supports(Event event, Context context) {
        return event == Event.BEFORE_VALIDATE || event == Event.BEFORE_MIGRATE;
    }

    @Override
    public boolean canHandleInTransaction(Event event, Context context) {
        return true;
    }

    @Override
    public void handle(Event event, Context context) {
        // statements of its own on Flyway's connection, which stays Flyway's (and in Flyway's transaction, if any)
        try (NamedStatements sql = new NamedStatements(context.getConnection())) {
            if (sql.get(UpkeepSql.HAS_SCHEMA_HISTORY).first(rs -> rs.getInt(1)).isEmpty()) {
                return;
            }
            int repaired = sql.get(UpkeepSql.REPAIR_V1_CHECKSUM)
                    .set("first", FIRST_V1)
                    .set("edited", EDITED_V1)
                    .update();
            if (repaired > 0) {
                LOG.info("outbox schema history: V1 recorded with the checksum of its edited form; set to the first "
                        + "form's (V2 adds what the edit added)");
            }
        } catch (SQLException e) {
            throw new FlywayException("cannot repair the recorded checksum of V1: " + e.getMessage(), e);
        }
    }

    @Override
    public String getCallbackName() {
        return "V1ChecksumRepair";
    }
}
