package org.edgebridge.config;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * One configuration key, declared once in {@link ConfigKeys} with one of the typed factories below: its dotted
 * name, its default as written in a file (null: unset), the values it allows (as the reference shows them), what
 * it means in one line, the doc section that says the rest, and how its text becomes a {@code T}.
 *
 * @param defaultValue the default as text; null only for the {@code optional…} keys, whose value is then empty
 * @param allowed the allowed values in words, e.g. {@code 1-10000} or {@code none, optional, required}
 * @param doc what the key is for, in one line of at most 140 characters; the details, the refusals and the figures
 *     belong in the section {@code link} names (ConfigReferenceTest holds both to that)
 * @param parser throws {@link IllegalArgumentException} with the rule ("must be …") for a text it does not take
 * @param unset the value of a key without a default that nobody set ({@code Optional.empty()}); null otherwise
 * @param link the doc section that explains the key, from the repository's root ({@code docs/forwarding.md#backoff});
 *     null: none. Set with {@link #see}
 */
public record ConfigKey<T>(
        String name,
        @Nullable String defaultValue,
        String allowed,
        String doc,
        Parser<T> parser,
        @Nullable T unset,
        @Nullable String link) {
    /** The longest a duration key may allow: ten years, "no limit" in practice. */
    static final Duration MAX_DURATION = Duration.ofDays(3650);

    /** A key without a link yet: add one with {@link #see}. */
    public ConfigKey(
            String name,
            @Nullable String defaultValue,
            String allowed,
            String doc,
            Parser<T> parser,
            @Nullable T unset) {
        this(name, defaultValue, allowed, doc, parser, unset, null);
    }

    /** Turns a key's text into its value. */
    @FunctionalInterface
    public interface Parser<T> {
        T parse(String text);
    }

    /** The value for this text (null: the key is unset). @throws IllegalArgumentException with the rule */
    public @Nullable T value(@Nullable String text) {
        return text == null ? unset : parser.parse(text);
    }

    /**
     * This key with the doc section that explains it: a file under docs/ and a heading's anchor as GitHub makes it,
     * {@code docs/forwarding.md#backoff}.
     */
    public ConfigKey<T> see(String section) {
        return new ConfigKey<>(name, defaultValue, allowed, doc, parser, unset, section);
    }

    /**
     * A key whose value is text (tokens, hosts, paths): YAML must not turn what is written into a number or a
     * boolean first ({@code 0777} would become {@code 511}), so a file must give it as a string.
     */
    public boolean textual() {
        return "text".equals(allowed) || "a path".equals(allowed);
    }

    public static ConfigKey<Integer> intKey(String name, int defaultValue, int min, int max, String doc) {
        return new ConfigKey<>(
                name, String.valueOf(defaultValue), min + "-" + max, doc, t -> ValueParsers.integer(t, min, max), null);
    }

    /**
     * A listener's port: a number from {@code min}, or {@code any} for any free one (the listener then reports the port
     * it bound).
     *
     * @param any the number that stands for "any free port" in the settings record
     */
    public static ConfigKey<Integer> portKey(String name, int defaultValue, int min, int any, String doc) {
        return new ConfigKey<>(
                name,
                String.valueOf(defaultValue),
                min + "-65535, or any",
                doc,
                t -> ValueParsers.port(t, min, any),
                null);
    }

    public static ConfigKey<Boolean> boolKey(String name, boolean defaultValue, String doc) {
        return new ConfigKey<>(name, String.valueOf(defaultValue), "true, false", doc, ValueParsers::bool, null);
    }

    public static ConfigKey<Duration> durationKey(
            String name, String defaultValue, Duration min, Duration max, String doc) {
        return new ConfigKey<>(
                name,
                defaultValue,
                ValueParsers.format(min) + "-" + ValueParsers.format(max),
                doc,
                t -> ValueParsers.duration(t, min, max),
                null);
    }

    /** A size in bytes ({@code 262144}, {@code 256KiB}, {@code 1MiB}) that fits in an int. */
    public static ConfigKey<Integer> intSizeKey(String name, String defaultValue, int min, int max, String doc) {
        return new ConfigKey<>(
                name,
                defaultValue,
                ValueParsers.formatSize(min) + "-" + ValueParsers.formatSize(max),
                doc,
                t -> (int) ValueParsers.size(t, min, max),
                null);
    }

    /** A size in bytes; {@code max} = {@link ValueParsers#NO_LIMIT} for "no upper limit". */
    public static ConfigKey<Long> sizeKey(String name, String defaultValue, long min, long max, String doc) {
        String allowed = max == ValueParsers.NO_LIMIT
                ? ValueParsers.formatSize(min) + " or more"
                : ValueParsers.formatSize(min) + "-" + ValueParsers.formatSize(max);
        return new ConfigKey<>(name, defaultValue, allowed, doc, t -> ValueParsers.size(t, min, max), null);
    }

    public static ConfigKey<Path> pathKey(String name, String defaultValue, String doc) {
        return new ConfigKey<>(name, defaultValue, "a path", doc, ValueParsers::path, null);
    }

    public static ConfigKey<Optional<Path>> optionalPathKey(String name, String doc) {
        return new ConfigKey<>(name, null, "a path", doc, t -> Optional.of(ValueParsers.path(t)), Optional.empty());
    }

    /** Text that is not blank (trimmed). */
    public static ConfigKey<String> textKey(String name, String defaultValue, String doc) {
        return new ConfigKey<>(name, defaultValue, "text", doc, ValueParsers::nonBlank, null);
    }

    public static ConfigKey<Optional<String>> optionalTextKey(String name, String doc) {
        return new ConfigKey<>(name, null, "text", doc, t -> Optional.of(ValueParsers.nonBlank(t)), Optional.empty());
    }

    /** Text (trimmed) matching {@code pattern}; {@code allowed} says which in words (the error is "must be " + it). */
    public static ConfigKey<String> matchingKey(
            String name, String defaultValue, Pattern pattern, String allowed, String doc) {
        return new ConfigKey<>(
                name, defaultValue, allowed, doc, t -> ValueParsers.matching(t, pattern, "must be " + allowed), null);
    }

    public static ConfigKey<URI> httpUrlKey(String name, String defaultValue, String doc) {
        return new ConfigKey<>(name, defaultValue, "an http:// or https:// URL", doc, ValueParsers::httpUrl, null);
    }

    public static ConfigKey<Optional<URI>> optionalHttpUrlKey(String name, String doc) {
        return new ConfigKey<>(
                name,
                null,
                "an http:// or https:// URL",
                doc,
                t -> Optional.of(ValueParsers.httpUrl(t)),
                Optional.empty());
    }

    /** An optional {@code http://host:port} proxy. */
    public static ConfigKey<Optional<URI>> optionalProxyKey(String name, String doc) {
        return new ConfigKey<>(
                name, null, "http://host:port", doc, t -> Optional.of(ValueParsers.proxyUrl(t)), Optional.empty());
    }

    /** One of an enum's constants, written in lower case in the file. */
    public static <E extends Enum<E>> ConfigKey<E> enumKey(String name, E defaultValue, Class<E> type, String doc) {
        String allowed =
                Arrays.stream(type.getEnumConstants()).map(ConfigKey::spelling).collect(Collectors.joining(", "));
        return new ConfigKey<>(
                name,
                spelling(defaultValue),
                allowed,
                doc,
                t -> {
                    for (E e : type.getEnumConstants()) {
                        if (spelling(e).equals(t.trim())) {
                            return e;
                        }
                    }
                    throw new IllegalArgumentException("must be one of " + allowed);
                },
                null);
    }

    private static String spelling(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }
}
