package org.edgebridge.broker;

import org.jspecify.annotations.Nullable;

/**
 * The device topic scheme (docs/protocol.md §1.3): {@code {prefix}/{clientId}/commands/{type}} in,
 * {@code {prefix}/{clientId}/receipts} out.
 */
public record Topics(String prefix) {

    /** A client id that can be placed in a topic level without changing what it means. */
    public static boolean isUsableClientId(String clientId) {
        return clientId != null
                && !clientId.isEmpty()
                && clientId.length() <= 128
                && clientId.chars()
                        .noneMatch(c -> c == '/' || c == '+' || c == '#' || c == 0 || Character.isISOControl(c));
    }

    /** The command topics of a client id, as a filter for messages: {@code {prefix}/{clientId}/commands/#}. */
    public String commandTopicPattern(String clientId) {
        return prefix + "/" + clientId + "/commands/#";
    }

    public String receiptTopic(String clientId) {
        return prefix + "/" + clientId + "/receipts";
    }

    /**
     * The command type of a topic if it is one of {@code clientId}'s own command topics, else null: the rest of the
     * topic after {@code commands/}, as sent. It may be empty or have empty levels ({@code commands/t/}); the intake
     * answers such a type with an {@code invalid_type} receipt (docs/protocol.md §1.4) rather than the broker closing
     * the connection, since the device published on its own topic. Wildcards are not allowed in a PUBLISH's topic
     * (MQTT 3.1.1 §4.7.1): such a topic is nobody's command topic.
     */
    public @Nullable String commandType(String clientId, @Nullable String topic) {
        if (!isUsableClientId(clientId) || topic == null) {
            return null;
        }
        String own = prefix + "/" + clientId + "/commands/";
        if (!topic.startsWith(own)) {
            return null;
        }
        String type = topic.substring(own.length());
        return type.contains("+") || type.contains("#") ? null : type;
    }
}
