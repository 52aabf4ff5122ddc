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
        java.time.Duration shutdownTimeout,
        Map<String, String> effective) {

    /** The effective configuration with secrets masked, for logs and support tickets. */
    public Map<String, String> masked() {
        Map<String, String> out = new java.util.TreeMap<>();
        effective.forEach((k, v) -> out.put(k, k.endsWith(".token") || k.contains("password") ? "****" : v));
        return out;
    }

    public Path outboxFile() {
        return dataDir.resolve("outbox.db");
    }
}
