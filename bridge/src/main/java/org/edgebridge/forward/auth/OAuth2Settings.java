package org.edgebridge.forward.auth;

import java.net.URI;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The OAuth2 client credentials grant that gets the bearer token for central ({@code ingest.oauth2.*}). The client
 * secret is never here: only the file that holds it, read at each token request.
 *
 * @param clientAuth how the client authenticates at the token endpoint (RFC 6749 §2.3.1)
 */
public record OAuth2Settings(
        URI tokenUrl,
        String clientId,
        Path clientSecretFile,
        Optional<String> scope,
        Optional<String> audience,
        ClientAuth clientAuth) {
    /**
     * {@code basic}: HTTP Basic with the form-encoded id and secret (every server takes it); {@code post}: in the form.
     */
    public enum ClientAuth {
        BASIC,
        POST
    }
}
