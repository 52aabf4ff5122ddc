package org.edgebridge.config;

import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Keys the bridge no longer reads. A site's file may still set one after an upgrade: {@link ConfigLoader} accepts it,
 * and the start logs one warning naming it ({@link ConfigWarnings}), instead of failing on an unknown key.
 */
final class RemovedKeys {
    /** Each removed key, with why it went and what to do. */
    private static final Map<String, String> WHY = Map.of(
            "mqtt.transport", "dropped: it measured no gain",
            "outbox.leanHistory", "dropped: it measured no gain",
            "intake.writerThread", "dropped: it measured no gain; the intake always has its writer thread");

    private RemovedKeys() {}

    /** The removed key an environment variable ({@code EDGE_BRIDGE_MQTT_TRANSPORT}) names, or null. */
    static @Nullable String ofVariable(String variable) {
        return WHY.keySet().stream()
                .filter(k -> ConfigLoader.envName(k).equals(variable))
                .findFirst()
                .orElse(null);
    }

    /** Every removed key's name. */
    static Set<String> names() {
        return WHY.keySet();
    }

    static boolean contains(String name) {
        return WHY.containsKey(name);
    }

    /** The start's warning for a removed key that is still set. */
    static String warning(String name) {
        return name + " is no longer read (" + WHY.get(name) + "); delete the line";
    }
}
