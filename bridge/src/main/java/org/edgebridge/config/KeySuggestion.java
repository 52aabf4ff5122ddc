package org.edgebridge.config;

import java.util.Locale;

/** "Did you mean": the known key an unknown one was probably meant to be. */
final class KeySuggestion {
    private KeySuggestion() {}

    /** The known key closest to {@code name}: same letters in another case, or at most a few edits away. */
    static String forName(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        for (ConfigKey<?> key : ConfigKeys.ALL) {
            if (key.name().toLowerCase(Locale.ROOT).equals(lower)
                    || key.name().substring(key.name().indexOf('.') + 1).equalsIgnoreCase(lower)) {
                return " (did you mean " + key.name() + "?)";
            }
        }
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (ConfigKey<?> key : ConfigKeys.ALL) {
            int d = distance(lower, key.name().toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                bestDistance = d;
                best = key.name();
            }
        }
        return best != null && bestDistance <= Math.max(2, name.length() / 4) ? " (did you mean " + best + "?)" : "";
    }

    /** Levenshtein distance. */
    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
