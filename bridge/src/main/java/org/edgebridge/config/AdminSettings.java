package org.edgebridge.config;

import java.util.Optional;

/**
 * The admin HTTP listener. Every POST needs {@code token} when it is set, and is refused when it is not. With
 * {@code readsNeedToken} every GET but the page's HTML and {@code /health/*} needs it too: so it is when
 * {@code admin.host} is not a loopback address, or {@code admin.tokenForReads=always}.
 */
public record AdminSettings(String host, int port, Optional<String> token, boolean readsNeedToken) {
    /** When reads (status, outbox with payloads, devices, metrics) need the admin token. */
    public enum TokenForReads {
        /** when admin.host is not a loopback address */
        AUTO,
        /** on every address */
        ALWAYS
    }

    static boolean readsNeedToken(String host, TokenForReads tokenForReads) {
        return tokenForReads == TokenForReads.ALWAYS || !LoopbackHost.is(host);
    }
}
