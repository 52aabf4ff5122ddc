package org.edgebridge.config;

import java.util.Optional;

/** The admin HTTP listener; every POST needs {@code token} when it is set, and is refused when it is not. */
public record AdminSettings(String host, int port, Optional<String> token) {}
