package org.edgebridge.forward.auth;

import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bearer token for central from the OAuth2 client credentials grant ({@code ingest.oauth2.*}): one token is
 * cached and used until shortly before it expires ({@link AccessToken#freshAt}), then a new one is asked for; a token
 * central answered 401 to is dropped ({@link #rejected}) so that the request is tried once with a new one. When the
 * endpoint fails, a token not expired yet is still used; without one, {@link TokenUnavailable} tells the forwarder to
 * back off. Thread-safe: one token request at a time, the other workers wait for it (at most {@code ingest.timeout}:
 * {@link TokenEndpoint} bounds the whole exchange). {@link #status()} takes no lock: it reads the snapshot left by
 * the last change, so the status page, {@code /metrics} and {@code /health/*} never wait for a token request.
 */
public final class OAuth2Tokens {
    private static final Logger LOG = LoggerFactory.getLogger(OAuth2Tokens.class);

    private final OAuth2Settings settings;
    private final TokenEndpoint endpoint;
    private final Clock clock;
    private @Nullable AccessToken token;
    private long requests;
    private long failures;
    private int failuresInARow;
    private @Nullable String lastFailure;
    private @Nullable Instant lastFailureAt;
    private long refreshedAfter401;
    /** While a token not yet expired is used after a failed request for a new one, the next is asked for then. */
    private Instant retryAt = Instant.EPOCH;

    private static final Duration RETRY_WHILE_VALID = Duration.ofSeconds(5);
    /** What {@link #status()} shows: written under the lock after every change, read without it. */
    private volatile TokenStatus snapshot;

    /**
     * @param http the HTTP client of the requests to central (its proxy, trust and client certificate)
     * @param timeout the bound of one token request ({@code ingest.timeout})
     * @param describe says in words what a transport failure was
     */
    public OAuth2Tokens(
            OAuth2Settings settings,
            Supplier<HttpClient> http,
            Duration timeout,
            Function<Throwable, String> describe,
            Clock clock) {
        this.settings = settings;
        this.endpoint = new TokenEndpoint(settings, http, timeout, describe, clock);
        this.clock = clock;
        this.snapshot = snapshot();
    }

    /** The token for a request now. @throws TokenUnavailable when there is none */
    public synchronized String bearer() {
        Instant now = clock.instant();
        if (token != null && (token.freshAt(now) || now.isBefore(retryAt) && unexpired(now))) {
            return token.value();
        }
        requests++;
        snapshot = snapshot();
        try {
            token = endpoint.request();
        } catch (TokenEndpoint.Failed e) {
            try {
                return failed(Objects.requireNonNull(e.getMessage()), now); // Failed always has its reason
            } finally {
                snapshot = snapshot();
            }
        }
        if (failuresInARow > 0) {
            LOG.info("got a token from ingest.oauth2.tokenUrl again after {} failed requests", failuresInARow);
        }
        failuresInARow = 0;
        snapshot = snapshot();
        return token.value();
    }

    private String failed(String reason, Instant now) {
        failures++;
        failuresInARow++;
        if (!reason.equals(lastFailure)) {
            LOG.warn("no token for central: {}", reason);
        }
        lastFailure = reason;
        lastFailureAt = now;
        if (token != null && unexpired(now)) {
            retryAt = now.plus(RETRY_WHILE_VALID); // not expired yet: better than nothing while the endpoint fails
            return token.value();
        }
        token = null;
        throw new TokenUnavailable(reason, failuresInARow);
    }

    private boolean unexpired(Instant now) {
        AccessToken t = token;
        return t != null && t.expiresAt().map(now::isBefore).orElse(false);
    }

    /**
     * Central answered 401 to a request with {@code used}: it is dropped if it is the token cached.
     *
     * @return whether the request is worth one more try with the token {@link #bearer()} gives now
     */
    public synchronized boolean rejected(String used) {
        if (token != null && token.value().equals(used)) {
            token = null;
            refreshedAfter401++;
            snapshot = snapshot();
            LOG.info("central answered 401 to the token from ingest.oauth2.tokenUrl: asking for a new one");
            return true;
        }
        return token != null; // another request already got a newer one
    }

    /** The state after the last change; never waits, not even for a token request under way. */
    public TokenStatus status() {
        return snapshot;
    }

    private TokenStatus snapshot() {
        AccessToken t = token;
        return new TokenStatus(
                settings.tokenUrl().toString(),
                settings.clientId(),
                settings.scope(),
                settings.audience(),
                settings.clientAuth().name().toLowerCase(Locale.ROOT),
                Optional.ofNullable(t).map(AccessToken::obtainedAt),
                Optional.ofNullable(t).flatMap(AccessToken::expiresAt),
                requests,
                failures,
                failuresInARow,
                Optional.ofNullable(lastFailure),
                Optional.ofNullable(lastFailureAt),
                refreshedAfter401);
    }
}
