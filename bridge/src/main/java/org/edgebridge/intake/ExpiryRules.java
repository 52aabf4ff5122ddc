package org.edgebridge.intake;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * How long a command of a type stays worth applying ({@code intake.expiryByType}, docs/protocol.md §1.4): rules
 * {@code pattern=duration}, the first whose pattern matches the command's type wins; none matching, no expiry. A
 * pattern is the type's levels, with {@code +} for any one level and a last {@code #} for any number of levels
 * (none included), as in MQTT topic filters. Immutable.
 */
public record ExpiryRules(List<Rule> rules) {
    /** No rule: commands expire only by their own {@code expiresAt}. */
    public static final ExpiryRules NONE = new ExpiryRules(List.of());

    private static final Pattern LEVEL = Pattern.compile("[A-Za-z0-9._:@-]+|\\+|#");

    /** One rule: commands whose type matches {@code pattern} expire {@code after} their arrival. */
    public record Rule(String pattern, Duration after) {
        public Rule {
            String[] levels = pattern.split("/", -1);
            for (int i = 0; i < levels.length; i++) {
                if (!LEVEL.matcher(levels[i]).matches() || (levels[i].equals("#") && i != levels.length - 1)) {
                    throw new IllegalArgumentException(
                            "pattern '" + pattern + "' must be type levels of [A-Za-z0-9._:@-] "
                                    + "separated by /, with + for one level and a last # for any levels");
                }
            }
            if (after.isNegative() || after.isZero()) {
                throw new IllegalArgumentException("the duration of '" + pattern + "' must be more than 0");
            }
        }

        boolean matches(String type) {
            String[] want = pattern.split("/", -1);
            String[] have = type.split("/", -1);
            for (int i = 0; i < want.length; i++) {
                if (want[i].equals("#")) {
                    return true;
                }
                if (i >= have.length || (!want[i].equals("+") && !want[i].equals(have[i]))) {
                    return false;
                }
            }
            return want.length == have.length;
        }
    }

    public ExpiryRules {
        rules = List.copyOf(rules);
    }

    /** When a command of {@code type} received at {@code receivedAt} expires by these rules; empty: never. */
    public Optional<Instant> expiresAt(String type, Instant receivedAt) {
        return rules.stream().filter(r -> r.matches(type)).findFirst().map(r -> receivedAt.plus(r.after()));
    }

    /** As written in the configuration: {@code none}, or the rules separated by commas. */
    @Override
    public String toString() {
        return rules.isEmpty()
                ? "none"
                : String.join(
                        ",",
                        rules.stream().map(r -> r.pattern() + "=" + r.after()).toList());
    }
}
