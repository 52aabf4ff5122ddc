/**
 * How the bridge proves itself to central: a static bearer token or one from a token file ({@link
 * org.edgebridge.forward.auth.SecretFile}), an OAuth2 client credentials grant ({@link
 * org.edgebridge.forward.auth.OAuth2Tokens}, {@link org.edgebridge.forward.auth.TokenEndpoint}), and a client
 * certificate for mutual TLS ({@link org.edgebridge.forward.auth.ClientCertificateFiles}), each reloaded when its file
 * changes ({@link org.edgebridge.forward.auth.FileStamp}).
 *
 * <p>Threads: none of its own; it runs on the forwarder's workers. A token endpoint's reply is untrusted and bounded
 * like central's.
 *
 * <p>Guarantees: a secret is never logged or shown on the status page; a token or certificate that cannot be read
 * shows as such ({@link org.edgebridge.forward.auth.TokenStatus}, {@link
 * org.edgebridge.forward.auth.ClientCertificateStatus}) and the forwarder waits instead of sending without it.
 */
@NullMarked
package org.edgebridge.forward.auth;

import org.jspecify.annotations.NullMarked;
