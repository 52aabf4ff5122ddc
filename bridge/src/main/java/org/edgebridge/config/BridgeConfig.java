package org.edgebridge.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.edgebridge.broker.BrokerSettings;
import org.edgebridge.budget.BudgetSettings;
import org.edgebridge.forecast.ForecastSettings;
import org.edgebridge.forward.ForwarderSettings;
import org.edgebridge.intake.IntakeSettings;
import org.edgebridge.outbox.RetentionSettings;

/**
 * The whole validated configuration. Built only by {@link ConfigLoader}; immutable.
 *
 * @param behindBalancer {@code edge.behindBalancer}: devices reach this box through a load balancer (shown on the
 *     status page)
 * @param effective every key with the text of its effective value (secrets included: mask before showing)
 * @param forecast what the disk and flash forecast needs ({@code data.dir}, {@code outbox.minFreeDisk}, {@code
 *     storage.ratedTbw})
 * @param budget what the data budget needs ({@code data.dir}, {@code ingest.dataBudget})
 * @param removedKeys keys the bridge no longer reads that the configuration still sets ({@link RemovedKeys})
 */
public record BridgeConfig(
        String edgeId,
        boolean behindBalancer,
        Path dataDir,
        BrokerSettings broker,
        IntakeSettings intake,
        RetentionSettings retention,
        ForwarderSettings forwarder,
        AdminSettings admin,
        Duration shutdownTimeout,
        Map<String, String> effective,
        ForecastSettings forecast,
        BudgetSettings budget,
        List<String> removedKeys) {

    /** The effective configuration with secrets masked, for logs and support tickets. */
    public Map<String, String> masked() {
        Map<String, String> out = new TreeMap<>();
        // secrets are values; auth.passwordFile is a path, which a support ticket needs to see
        effective.forEach((k, v) -> out.put(k, isSecret(k) ? "****" : v));
        return out;
    }

    public Path outboxFile() {
        return dataDir.resolve("outbox.db");
    }

    /** Keys whose value is a secret: the tokens, and any password given as a value. */
    static boolean isSecret(String key) {
        return key.endsWith(".token") || (key.toLowerCase(Locale.ROOT).contains("password") && !key.endsWith("File"));
    }
}
