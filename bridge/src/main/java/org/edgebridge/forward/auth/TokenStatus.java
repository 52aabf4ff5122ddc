package org.edgebridge.forward.auth;

import java.time.Instant;
import java.util.Optional;

/**
 * The OAuth2 token for central as an admin sees it: where it comes from and how that goes; never the token or the
 * secret.
 *
 * @param requests token requests since start
 * @param failures token requests that got no token since start
 * @param failuresInARow the failed token requests since the last that got one (0: the endpoint answers)
 * @param refreshedAfter401 tokens dropped because central answered 401 to them (a new one was asked for once)
 */
public record TokenStatus(
        String tokenUrl,
        String clientId,
        Optional<String> scope,
        Optional<String> audience,
        String clientAuth,
        Optional<Instant> tokenObtainedAt,
        Optional<Instant> tokenExpiresAt,
        long requests,
        long failures,
        int failuresInARow,
        Optional<String> lastFailure,
        Optional<Instant> lastFailureAt,
        long refreshedAfter401) {}
