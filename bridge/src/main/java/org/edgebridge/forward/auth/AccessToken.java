package org.edgebridge.forward.auth;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * A bearer token from the token endpoint.
 *
 * @param expiresAt when the endpoint said it expires ({@code expires_in}); empty: it did not say, the token is used
 *     until central answers 401
 */
record AccessToken(String value, Instant obtainedAt, Optional<Instant> expiresAt) {
    /** The most a token is renewed ahead of its expiry (less for short-lived tokens: half their life). */
    static final Duration MAX_RENEW_AHEAD = Duration.ofSeconds(60);

    /** Whether to use it for a request at {@code now}: not within the renewal margin of its expiry. */
    boolean freshAt(Instant now) {
        return expiresAt
                .map(end -> {
                    Duration life = Duration.between(obtainedAt, end);
                    Duration ahead =
                            life.dividedBy(2).compareTo(MAX_RENEW_AHEAD) < 0 ? life.dividedBy(2) : MAX_RENEW_AHEAD;
                    return now.isBefore(end.minus(ahead));
                })
                .orElse(true);
    }
}
