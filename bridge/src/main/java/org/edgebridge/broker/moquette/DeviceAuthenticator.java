package org.edgebridge.broker.moquette;

import io.moquette.broker.security.IAuthenticator;
import org.edgebridge.broker.DeviceLogin;
import org.edgebridge.broker.RefusalLog;
import org.edgebridge.broker.Topics;
import org.edgebridge.hook.TestHook;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moquette 0.17 bugs answered: an exception thrown here would kill a session loop for good, so it never throws;
 * with {@code allow_anonymous=true} a CONNECT without a username skips the authenticator, so the real decision is
 * taken before Moquette, by {@code DeviceLogin} in the {@link ConnectGate}. Proven by {@code DeviceLoginIT}
 * (a registered client id needs its credentials even with anonymous access on) and {@code SecurityIT}.
 *
 * <p>Moquette's authenticator: lets in what the {@link ConnectGate} let through. Moquette calls it on a Netty I/O
 * thread, only for CONNECTs that carry a username; the gate has already checked those credentials with
 * {@link DeviceLogin} (on its own threads), so this costs a lookup, never a PBKDF2 run. Never throws.
 */
final class DeviceAuthenticator implements IAuthenticator {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceAuthenticator.class);

    private final DeviceLogin login;
    private final ConnectPolicy policy;

    DeviceAuthenticator(DeviceLogin login, ConnectPolicy policy) {
        this.login = login;
        this.policy = policy;
    }

    @Override
    public boolean checkValid(String clientId, String username, byte[] password) {
        TestHook.IN_BROKER_AUTHENTICATOR.enter();
        try {
            if (!Topics.isUsableClientId(clientId)) {
                return false;
            }
            if (policy.isCertificateLogin(clientId, username, password)) {
                return true;
            }
            if (username != null && username.startsWith(DeviceLogin.CERT_USER_PREFIX)) {
                return false;
            }
            return login.alreadyAccepted(clientId, username, password);
        } catch (RuntimeException e) {
            LOG.error("authentication of {} failed; refused", RefusalLog.quote(clientId), e);
            return false;
        }
    }
}
