package org.edgebridge.forward;

import java.util.Optional;
import org.edgebridge.forward.auth.OAuth2Tokens;
import org.edgebridge.forward.auth.TokenStatus;

/**
 * The {@code Authorization: Bearer} of the requests to central: none, {@code ingest.token} (or its file), or a token
 * of the OAuth2 client credentials grant ({@code ingest.oauth2.*}), which alone can be renewed after a 401.
 */
final class CentralAuthorization {
    private final Optional<String> fixed;
    private final Optional<OAuth2Tokens> oauth2;

    CentralAuthorization(Optional<String> fixed, Optional<OAuth2Tokens> oauth2) {
        this.fixed = fixed;
        this.oauth2 = oauth2;
    }

    /** The token for the next request, if any. @throws TokenUnavailable when the token endpoint gave none */
    Optional<String> bearer() {
        return oauth2.isPresent() ? Optional.of(oauth2.get().bearer()) : fixed;
    }

    /** Central answered 401 to {@code used}: whether to send once more with {@link #bearer()} (a renewed token). */
    boolean renewAfter401(Optional<String> used) {
        return oauth2.isPresent() && used.isPresent() && oauth2.get().rejected(used.get());
    }

    Optional<TokenStatus> status() {
        return oauth2.map(OAuth2Tokens::status);
    }
}
