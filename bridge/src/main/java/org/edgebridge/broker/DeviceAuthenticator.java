package org.edgebridge.broker;

import io.moquette.broker.security.IAuthenticator;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks CONNECT credentials against the password file. Moquette calls it on a Netty I/O thread, only for
 * CONNECTs that carry a username (anonymous ones are governed by {@code allow_anonymous}). Never throws.
 */
final class DeviceAuthenticator implements IAuthenticator {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceAuthenticator.class);

    private final Optional<PasswordFile> passwords;
    private final boolean anonymous;
    private final ConnectPolicy policy;

    DeviceAuthenticator(Optional<PasswordFile> passwords, boolean anonymous, ConnectPolicy policy) {
        this.passwords = passwords;
        this.anonymous = anonymous;
        this.policy = policy;
    }

    @Override
    public boolean checkValid(String clientId, String username, byte[] password) {
        try {
            if (!Topics.isUsableClientId(clientId)) {
                return false;
            }
            if (policy.isCertificateLogin(clientId, username, password)) {
                return true;
            }
            if (username != null && username.startsWith(ConnectPolicy.CERT_USER_PREFIX)) {
                return false;
            }
            if (passwords.isEmpty()) {
                // No registry: credentials cannot be checked, so they count for nothing more than anonymous.
                return anonymous;
            }
            boolean ok = passwords.get().verify(clientId, username, password);
            if (!ok) {
                LOG.info("refused CONNECT of {} as user {}: not registered with that username and password", clientId, username);
            }
            return ok;
        } catch (RuntimeException e) {
            LOG.error("authentication of {} failed; refused", clientId, e);
            return false;
        }
    }
}
