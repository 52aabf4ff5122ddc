package org.edgebridge.broker;

import io.netty.channel.Channel;
import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttConnectPayload;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttConnectVariableHeader;
import io.netty.handler.ssl.SslHandler;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the bridge checks of a CONNECT before Moquette sees it (on the channel's event loop; never throws):
 * a client id that fits in a topic level; with a client certificate, that its CN (or a SAN) is the client id;
 * and, when asked, that the client id is not in a takeover storm.
 *
 * <p>A device that proved its identity with a client certificate and sent no username is passed on with
 * certificate credentials ({@code cert:<clientId>} and a secret of this process), which the authenticator
 * accepts: Moquette 0.17 itself cannot see certificates.
 */
final class ConnectPolicy {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectPolicy.class);
    static final String CERT_USER_PREFIX = "cert:";

    private final BrokerSettings settings;
    private final DeviceRegistry devices;
    private final byte[] certSecret;

    ConnectPolicy(BrokerSettings settings, DeviceRegistry devices) {
        this.settings = settings;
        this.devices = devices;
        byte[] secret = new byte[24];
        new SecureRandom().nextBytes(secret);
        this.certSecret = HexFormat.of().formatHex(secret).getBytes(StandardCharsets.US_ASCII);
    }

    /** @param refuse null to let the CONNECT through; @param connect the CONNECT to pass on (may be rewritten) */
    record Verdict(MqttConnectReturnCode refuse, MqttConnectMessage connect) {}

    Verdict check(Channel channel, MqttConnectMessage connect) {
        try {
            String clientId = connect.payload().clientIdentifier();
            if (!Topics.isUsableClientId(clientId)) {
                LOG.info("refused CONNECT with client id '{}': it must be 1-128 characters without / + # or control characters", clientId);
                return refuse(MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED);
            }
            X509Certificate cert = peerCertificate(channel);
            if (cert != null) {
                List<String> identities = identities(cert);
                if (!identities.contains(clientId)) {
                    devices.refusedConnect(clientId);
                    LOG.warn("refused CONNECT of {}: its client certificate names {}", clientId, identities);
                    return refuse(MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED);
                }
            }
            if (settings.throttleTakeovers()
                    && devices.recentTakeovers(clientId, Duration.ofMinutes(1)) >= settings.takeoverAlarmPerMinute()) {
                devices.refusedConnect(clientId);
                return refuse(MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE);
            }
            if (cert != null && !connect.variableHeader().hasUserName()) {
                return new Verdict(null, withCredentials(connect, CERT_USER_PREFIX + clientId, certSecret));
            }
            return new Verdict(null, connect);
        } catch (RuntimeException e) {
            LOG.error("CONNECT check failed; refused", e);
            return refuse(MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE);
        }
    }

    /** True for the credentials this policy gave a device that proved its client id with a certificate. */
    boolean isCertificateLogin(String clientId, String username, byte[] password) {
        return username != null && username.equals(CERT_USER_PREFIX + clientId) && password != null
                && java.security.MessageDigest.isEqual(certSecret, password);
    }

    private static Verdict refuse(MqttConnectReturnCode code) {
        return new Verdict(code, null);
    }

    private static X509Certificate peerCertificate(Channel channel) {
        SslHandler ssl = channel.pipeline().get(SslHandler.class);
        if (ssl == null) {
            return null;
        }
        try {
            Certificate[] chain = ssl.engine().getSession().getPeerCertificates();
            return chain.length > 0 && chain[0] instanceof X509Certificate x ? x : null;
        } catch (SSLPeerUnverifiedException e) {
            return null;
        }
    }

    /** The names a certificate vouches for: its subject CN and its DNS and URI subject alternative names. */
    static List<String> identities(X509Certificate cert) {
        List<String> names = new ArrayList<>();
        try {
            for (Rdn rdn : new LdapName(cert.getSubjectX500Principal().getName()).getRdns()) {
                if (rdn.getType().equalsIgnoreCase("CN")) {
                    names.add(String.valueOf(rdn.getValue()));
                }
            }
        } catch (InvalidNameException e) {
            // no usable subject: only SANs count
        }
        try {
            Collection<List<?>> sans = cert.getSubjectAlternativeNames();
            if (sans != null) {
                for (List<?> san : sans) {
                    int type = (Integer) san.get(0);
                    if (type == 2 || type == 6) {
                        names.add(String.valueOf(san.get(1)));
                    }
                }
            }
        } catch (CertificateParsingException e) {
            // no usable SANs
        }
        return names;
    }

    private static MqttConnectMessage withCredentials(MqttConnectMessage m, String username, byte[] password) {
        MqttConnectVariableHeader h = m.variableHeader();
        MqttConnectVariableHeader header = new MqttConnectVariableHeader(h.name(), h.version(), true, true, h.isWillRetain(),
                h.willQos(), h.isWillFlag(), h.isCleanSession(), h.keepAliveTimeSeconds());
        MqttConnectPayload p = m.payload();
        MqttConnectPayload payload = new MqttConnectPayload(p.clientIdentifier(), p.willTopic(), p.willMessageInBytes(),
                username, password);
        return new MqttConnectMessage(m.fixedHeader(), header, payload);
    }
}
