package org.edgebridge.config;

import java.nio.file.Path;
import java.util.Map;
import org.edgebridge.admin.AdminSettings;
import org.edgebridge.broker.BrokerSettings;
import org.edgebridge.forward.ForwarderSettings;
import org.edgebridge.intake.IntakeSettings;
import org.edgebridge.outbox.RetentionSettings;

/**
 * The whole validated configuration. Built only by {@link ConfigLoader}; immutable.
 *
 * @param effective every key with the text of its effective value (secrets included: mask before showing)
 */
public record BridgeConfig(
        String edgeId,
        Path dataDir,
        BrokerSettings broker,
        IntakeSettings intake,
        RetentionSettings retention,
        ForwarderSettings forwarder,
        AdminSettings admin,
        Map<String, String> effective) {

    public Path outboxFile() {
        return dataDir.resolve("outbox.db");
    }
}
