package org.edgebridge.config;

import java.util.function.Function;

/**
 * One configuration key: its dotted name, its default as written in a file (null = unset), what it means,
 * and how its text is turned into a value (throwing {@link IllegalArgumentException} with the rule).
 */
public record ConfigKey(String name, String defaultValue, String doc, Function<String, Object> parser) {}
