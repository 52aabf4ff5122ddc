package org.edgebridge.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.edgebridge.intake.ExpiryRules;

/** Parsers for the value types of configuration keys. Each throws {@link IllegalArgumentException} with the rule. */
final class ValueParsers {
    /** A Java regular expression, matched against a whole value. */
    static Optional<Pattern> optionalRegex(String text) {
        try {
            return Optional.of(Pattern.compile(text.trim()));
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("must be a regular expression (" + e.getDescription() + ")");
        }
    }

    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(B|KiB|MiB|GiB)?");
    /** The upper bound of a size without a real one. */
    static final long NO_LIMIT = Long.MAX_VALUE / 2;

    private ValueParsers() {}

    static int integer(String raw, int min, int max) {
        final int value;
        try {
            value = Integer.parseInt(raw.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("must be a whole number from " + min + " to " + max);
        }
        if (value < min || value > max) {
            throw new IllegalArgumentException("must be from " + min + " to " + max);
        }
        return value;
    }

    /** A port from {@code min} to 65535, or {@code any} (any free port), which gives {@code any}. */
    static int port(String raw, int min, int any) {
        if (raw.trim().equals("any")) {
            return any;
        }
        try {
            Integer.parseInt(raw.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "must be a whole number from " + min + " to 65535, or any (any free port)");
        }
        return integer(raw, min, 65535);
    }

    static boolean bool(String raw) {
        return switch (raw.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("must be true or false");
        };
    }

    /** {@code none}, or {@code pattern=duration} rules separated by commas ({@link ExpiryRules}). */
    static ExpiryRules expiryRules(String raw) {
        String text = raw.trim();
        if (text.isEmpty() || text.equals("none")) {
            return ExpiryRules.NONE;
        }
        List<ExpiryRules.Rule> rules = new ArrayList<>();
        for (String item : text.split(",")) {
            int eq = item.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("must be none or rules pattern=duration separated by commas "
                        + "(gate/open=10m,batch/#=2h); '" + item.trim() + "' has no =");
            }
            Duration after = duration(item.substring(eq + 1), Duration.ofSeconds(1), Duration.ofDays(3650));
            rules.add(new ExpiryRules.Rule(item.substring(0, eq).trim(), after));
        }
        return new ExpiryRules(rules);
    }

    static Duration duration(String raw, Duration min, Duration max) {
        Matcher m = DURATION.matcher(raw.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("must be a duration such as 500ms, 30s, 5m, 2h or 7d");
        }
        long n = Long.parseLong(m.group(1));
        Duration value = switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        };
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new IllegalArgumentException("must be from " + format(min) + " to " + format(max));
        }
        return value;
    }

    static long size(String raw, long min, long max) {
        Matcher m = SIZE.matcher(raw.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("must be a size in bytes such as 262144, 256KiB or 1MiB");
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "B" : m.group(2);
        long value = switch (unit) {
            case "KiB" -> n * 1024;
            case "MiB" -> n * 1024 * 1024;
            case "GiB" -> n * 1024 * 1024 * 1024;
            default -> n;
        };
        if (value < min || value > max) {
            throw new IllegalArgumentException("must be from " + min + " to " + max + " bytes");
        }
        return value;
    }

    static URI httpUrl(String raw) {
        try {
            URI uri = new URI(raw.trim());
            if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
                throw new IllegalArgumentException("must be an http:// or https:// URL with a host");
            }
            return uri;
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("must be an http:// or https:// URL with a host");
        }
    }

    /**
     * An HTTP proxy as {@code http://host:port}: nothing else (no path, no user info: credentials are not put in a
     * URL).
     */
    static URI proxyUrl(String raw) {
        String rule = "must be an http://host:port URL (the proxy itself is spoken to in plain HTTP; https:// central "
                + "goes through it with CONNECT)";
        try {
            URI uri = new URI(raw.trim());
            boolean bare = uri.getRawPath() == null
                    || uri.getRawPath().isEmpty()
                    || uri.getRawPath().equals("/");
            if (!"http".equals(uri.getScheme())
                    || uri.getHost() == null
                    || uri.getPort() < 1
                    || !bare
                    || uri.getRawUserInfo() != null
                    || uri.getRawQuery() != null) {
                throw new IllegalArgumentException(rule);
            }
            return uri;
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(rule);
        }
    }

    static String nonBlank(String raw) {
        if (raw.isBlank()) {
            throw new IllegalArgumentException("must not be blank");
        }
        return raw.trim();
    }

    static Path path(String raw) {
        if (raw.isBlank()) {
            throw new IllegalArgumentException("must be a file system path");
        }
        try {
            return Path.of(raw.trim());
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("must be a valid file system path");
        }
    }

    static String matching(String raw, Pattern pattern, String rule) {
        if (!pattern.matcher(raw.trim()).matches()) {
            throw new IllegalArgumentException(rule);
        }
        return raw.trim();
    }

    /** A size as the reference writes it: {@code 1MiB}, {@code 256KiB}, or bytes. */
    static String formatSize(long bytes) {
        for (String unit : new String[] {"GiB", "MiB", "KiB"}) {
            long factor = switch (unit) {
                case "GiB" -> 1024L * 1024 * 1024;
                case "MiB" -> 1024L * 1024;
                default -> 1024L;
            };
            if (bytes != 0 && bytes % factor == 0) {
                return bytes / factor + unit;
            }
        }
        return bytes + "B";
    }

    static String format(Duration d) {
        if (d.isZero()) {
            return "0s";
        }
        if (d.toMillis() % 86_400_000 == 0) {
            return d.toDays() + "d";
        }
        if (d.toMillis() % 3_600_000 == 0) {
            return d.toHours() + "h";
        }
        if (d.toMillis() % 60_000 == 0) {
            return d.toMinutes() + "m";
        }
        if (d.toMillis() % 1000 == 0) {
            return d.toSeconds() + "s";
        }
        return d.toMillis() + "ms";
    }
}
