package org.edgebridge.config;

import java.util.List;

/** Thrown when a configuration cannot be used; carries every problem found, one line each. */
public final class ConfigException extends RuntimeException {
    private final List<String> problems;

    public ConfigException(List<String> problems) {
        super(String.join("\n", problems));
        this.problems = List.copyOf(problems);
    }

    public ConfigException(String problem) {
        this(List.of(problem));
    }

    /** One line per problem, each naming the key, the value and what is allowed. */
    public List<String> problems() {
        return problems;
    }
}
