package org.edgebridge.broker;

import org.jspecify.annotations.Nullable;

/**
 * The device topic scheme (docs/protocol.md §1.3): {@code {prefix}/{clientId}/commands/{type}} in,
 * {@code {prefix}/{clientId}/receipts} out.
 */
public record Topics(String prefix) {

    /** A client id that can be placed in a topic level without changing what it means. */
    public static boolean isUsableClientId(String clientId) {
        return clientId != null && !clientId.isEmpty() && clientId.length() <= 128
                && clientId.chars().noneMatch(c -> c == '/' || c == '+' || c == '#' || c == 0 || Character.isISOControl(c));
    }

    /** The command topics of a client id, as a filter for messages: {@code {prefix}/{clientId}/commands/#}. */
    public String commandTopicPattern(String clientId) {
        return prefix + "/" + clientId + "/commands/#";
    }

    public String receiptTopic(String clientId) {
        return prefix + "/" + clientId + "/receipts";
    }

    /**
     * The command type of a topic if it is one of {@code clientId}'s own command topics, else null.
     * The type is the rest of the topic after {@code commands/}: one or more non-empty levels.
     */
    public @Nullable String commandType(String clientId, @Nullable String topic) {
        if (!isUsableClientId(clientId) || topic == null) {
            return null;
        }
        String own = prefix + "/" + clientId + "/commands/";
        if (!topic.startsWith(own) || topic.length() == own.length()) {
            return null;
        }
        String type = topic.substring(own.length());
        if (type.startsWith("/") || type.endsWith("/") || type.contains("//") || type.contains("+") || type.contains("#")) {
            return null;
        }
        return type;
    }
}
