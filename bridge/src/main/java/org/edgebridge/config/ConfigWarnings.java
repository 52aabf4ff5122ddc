package org.edgebridge.config;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.edgebridge.broker.TlsSettings;

/**
 * What a valid configuration still gets wrong for a site: settings under which no device could connect, no admin
 * action would work, or a secret is weak or travels in clear; and keys it still sets that the bridge no longer reads
 * ({@link RemovedKeys}). {@code check-config} prints these as warnings and the bridge logs them at start.
 */
public final class ConfigWarnings {
    /** Fewer characters than this in admin.token is a token that can be guessed (24 random hex digits is 96 bits). */
    public static final int MIN_ADMIN_TOKEN_LENGTH = 16;

    private ConfigWarnings() {}

    public static List<String> of(BridgeConfig c) {
        List<String> out = new ArrayList<>();
        boolean certificates = c.broker()
                .listener()
                .tls()
                .map(t -> t.clientAuth() != TlsSettings.ClientAuth.NONE)
                .orElse(false);
        if (!c.broker().login().anonymous() && c.broker().login().passwordFile().isEmpty() && !certificates) {
            out.add("auth.anonymous=false, no auth.passwordFile and no client certificates (tls.clientAuth): no device "
                    + "can "
                    + "connect; register devices (device add) and set auth.passwordFile, or set tls.clientAuth");
        }
        if (c.admin().token().isEmpty()) {
            out.add("admin.token is not set: every admin action (POST /api/…: requeue, reject, pause, resume) is "
                    + "refused; "
                    + "set one, e.g. openssl rand -hex 24");
        } else if (c.admin().token().get().length() < MIN_ADMIN_TOKEN_LENGTH) {
            out.add("admin.token has " + c.admin().token().get().length()
                    + " characters: a token this short can be guessed; "
                    + "use at least " + MIN_ADMIN_TOKEN_LENGTH + ", e.g. openssl rand -hex 24");
        }
        boolean anonymousWithoutCertificate = c.broker().login().anonymous()
                && (c.broker().listener().port() != 0
                        || c.broker()
                                .listener()
                                .tls()
                                .map(t -> t.clientAuth() == TlsSettings.ClientAuth.OPTIONAL)
                                .orElse(false));
        if (certificates
                && anonymousWithoutCertificate
                && c.broker().login().certificates().clientIds().isEmpty()) {
            out.add("tls.clientAuth="
                    + c.broker()
                            .listener()
                            .tls()
                            .orElseThrow()
                            .clientAuth()
                            .name()
                            .toLowerCase(Locale.ROOT)
                    + " with auth.anonymous=true and "
                    + (c.broker().listener().port() != 0
                            ? "the plain listener on (mqtt.port="
                                    + c.broker().listener().port() + ")"
                            : "certificates optional")
                    + ": a device that has never yet connected with "
                    + "its certificate can be impersonated by an anonymous client until it does (after that its client "
                    + "id "
                    + "always needs the certificate); set auth.certificateClientIds to the pattern of your certificate "
                    + "devices' ids, or auth.anonymous=false, or mqtt.port=0");
        }
        URI ingest = c.forwarder().central().url();
        if (c.forwarder().credentials().token().isPresent()
                && "http".equalsIgnoreCase(ingest.getScheme())
                && !LoopbackHost.is(ingest.getHost())) {
            out.add("ingest.token is sent to " + ingest + " over plain http://: anyone on the way can read it; "
                    + "use an https:// ingest.url (ingest.caFile for a private CA)");
        }
        c.forwarder()
                .credentials()
                .oauth2()
                .map(o -> o.tokenUrl())
                .filter(u -> "http".equalsIgnoreCase(u.getScheme()) && !LoopbackHost.is(u.getHost()))
                .ifPresent(u -> out.add("ingest.oauth2.tokenUrl is " + u
                        + ", plain http://: "
                        + "the client secret and the tokens travel in clear; use the token endpoint's https:// URL"));
        out.addAll(TokenFiles.warnings(c.effective()));
        c.removedKeys().forEach(k -> out.add(RemovedKeys.warning(k)));
        return out;
    }
}
