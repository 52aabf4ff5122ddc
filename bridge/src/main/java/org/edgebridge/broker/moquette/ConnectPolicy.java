package org.edgebridge.broker.moquette;

import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttConnectPayload;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttConnectVariableHeader;
import io.netty.handler.ssl.SslHandler;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.edgebridge.broker.BrokerLimits;
import org.edgebridge.broker.BrokerSettings;
import org.edgebridge.broker.CertificateDevices;
import org.edgebridge.broker.DeviceLogin;
import org.edgebridge.broker.DeviceRegistry;
import org.edgebridge.broker.RefusalLog;
import org.edgebridge.broker.Topics;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * Moquette 0.17 limits answered: {@code IAuthenticator} cannot see the client certificate, so the CN/SAN is
 * checked here, on the channel ({@code SecurityIT}, client auth required); a Last Will is published without asking
 * the ACL, so it is taken out of the CONNECT ({@code DeviceLoginIT}, the will test).
 *
 * <p>What the bridge checks of a CONNECT before Moquette sees it (on the channel's event loop; cheap; never throws):
 * a client id that fits in a topic level; with a client certificate, that its CN (or a SAN) is the client id;
 * a Last Will only on one of the device's own command topics; and, when asked, that the client id is not in a
 * takeover storm. Credentials are checked next, by {@link DeviceLogin}, off the event loop.
 *
 * <p>A will is a publish, so it passes the same rule as any publish: a device may leave a will only on its own
 * command topics, {@code {prefix}/{clientId}/commands/{type}}; any other will topic (another device's receipts,
 * anything else) is refused with CONNACK 5. An accepted will is taken out of the CONNECT that Moquette sees
 * (0.17 would publish it without asking the ACL) and handed to the {@link ConnectGate}, which sends it to the
 * intake as a command of that device when the connection ends without a DISCONNECT.
 *
 * <p>No impersonation across listeners: a client id that has once connected with a certificate naming it, or that
 * matches {@code auth.certificateClientIds}, is refused with CONNACK 5 whenever it comes without one, on any
 * listener, whatever {@code auth.anonymous} or its password say ({@link CertificateDevices}).
 *
 * <p>A device that proved its identity with a client certificate and sent no username is passed on with
 * certificate credentials ({@code cert:<clientId>} and a secret of this process), which the authenticator
 * accepts: Moquette 0.17 itself cannot see certificates.
 */
final class ConnectPolicy {
    private final BrokerSettings settings;
    private final Topics topics;
    private final DeviceRegistry devices;
    private final RefusalLog log;
    private final CertificateDevices certificates;
    private final BrokerLimits limits;
    private final byte[] certSecret;

    ConnectPolicy(
            BrokerSettings settings,
            Topics topics,
            DeviceRegistry devices,
            RefusalLog log,
            CertificateDevices certificates,
            BrokerLimits limits) {
        this.limits = limits;
        this.settings = settings;
        this.certificates = certificates;
        this.topics = topics;
        this.devices = devices;
        this.log = log;
        byte[] secret = new byte[24];
        new SecureRandom().nextBytes(secret);
        this.certSecret = HexFormat.of().formatHex(secret).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * @param refuse null to let the CONNECT through
     * @param connect the CONNECT to pass on (without its will; may carry certificate credentials)
     * @param will the device's Last Will, or null
     * @param certified a client certificate names this client id
     */
    record Verdict(
            @Nullable MqttConnectReturnCode refuse,
            @Nullable MqttConnectMessage connect,
            @Nullable LastWill will,
            boolean certified) {}

    /** A Last Will accepted at CONNECT: a command of its device, sent when the connection breaks. */
    record LastWill(String clientId, String topic, byte[] payload) {}

    Verdict check(Channel channel, MqttConnectMessage connect) {
        try {
            String clientId = connect.payload().clientIdentifier();
            if (!Topics.isUsableClientId(clientId)) {
                log.info(
                        "client-id",
                        "",
                        "refused CONNECT with client id " + RefusalLog.quote(clientId)
                                + " from " + channel.remoteAddress()
                                + " with CONNACK 2: it must be 1-128 characters without / + # or control characters");
                return refuse(MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED);
            }
            X509Certificate cert = peerCertificate(channel);
            if (cert != null) {
                List<String> identities = identities(cert);
                if (!identities.contains(clientId)) {
                    devices.refusedConnect(clientId);
                    log.warn(
                            "certificate",
                            clientId,
                            "refused CONNECT of " + RefusalLog.quote(clientId)
                                    + " with CONNACK 5: its client certificate names "
                                    + RefusalLog.quote(String.join(", ", identities)));
                    return refuse(MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED);
                }
                certificates.remember(clientId);
            } else if (certificates.needsCertificate(clientId)) {
                certificates.refused();
                log.warn(
                        "certificate",
                        clientId,
                        "refused CONNECT of " + RefusalLog.quote(clientId) + " from "
                                + channel.remoteAddress()
                                + " with CONNACK 5: this client id connects with a client certificate "
                                + "(it did before, or matches auth.certificateClientIds), and this CONNECT came "
                                + "without one");
                return refuse(MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED);
            }
            MqttConnectVariableHeader header = connect.variableHeader();
            LastWill will = null;
            if (header.isWillFlag()) {
                String willTopic = connect.payload().willTopic();
                if (willTopic != null
                        && ByteBufUtil.utf8Bytes(willTopic)
                                > settings.limits().maxTopic().intBytes()) {
                    limits.topicTooLong();
                    log.warn(
                            "will",
                            clientId,
                            "refused CONNECT of " + RefusalLog.quote(clientId)
                                    + " with CONNACK 5: its Last Will's topic "
                                    + "is longer than mqtt.maxTopicBytes ("
                                    + settings.limits().maxTopic().intBytes()
                                    + " bytes)");
                    return refuse(MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED);
                }
                if (topics.commandType(clientId, willTopic) == null) {
                    devices.refusedConnect(clientId);
                    log.warn(
                            "will",
                            clientId,
                            "refused CONNECT of " + RefusalLog.quote(clientId)
                                    + " with CONNACK 5: its Last Will is on " + RefusalLog.quote(willTopic)
                                    + ", but a device may publish (and leave a will) only on its own command topics "
                                    + topics.commandTopicPattern(clientId));
                    return refuse(MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED);
                }
                byte[] payload = connect.payload().willMessageInBytes();
                will = new LastWill(clientId, willTopic, payload == null ? new byte[0] : payload);
            }
            if (settings.sessions().throttleTakeovers()
                    && devices.recentTakeovers(clientId) >= settings.sessions().takeoverAlarmPerMinute()) {
                devices.refusedConnect(clientId);
                return refuse(MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE);
            }
            boolean certLogin = cert != null && !header.hasUserName();
            MqttConnectMessage passOn = certLogin || will != null
                    ? rewrite(
                            connect,
                            certLogin ? DeviceLogin.CERT_USER_PREFIX + clientId : null,
                            certLogin ? certSecret : null)
                    : connect;
            return new Verdict(null, passOn, will, cert != null);
        } catch (RuntimeException e) {
            LoggerFactory.getLogger(ConnectPolicy.class).error("CONNECT check failed; refused", e);
            return refuse(MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE);
        }
    }

    /** True for the credentials this policy gave a device that proved its client id with a certificate. */
    boolean isCertificateLogin(String clientId, String username, byte[] password) {
        return username != null
                && username.equals(DeviceLogin.CERT_USER_PREFIX + clientId)
                && password != null
                && MessageDigest.isEqual(certSecret, password);
    }

    private static Verdict refuse(MqttConnectReturnCode code) {
        return new Verdict(code, null, null, false);
    }

    private static @Nullable X509Certificate peerCertificate(Channel channel) {
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

    /**
     * The CONNECT without its will and, when {@code username} is not null, with these credentials instead of its own.
     */
    private static MqttConnectMessage rewrite(
            MqttConnectMessage m, @Nullable String username, byte @Nullable [] password) {
        MqttConnectVariableHeader h = m.variableHeader();
        MqttConnectPayload p = m.payload();
        boolean replace = username != null;
        MqttConnectVariableHeader header = new MqttConnectVariableHeader(
                h.name(),
                h.version(),
                replace || h.hasUserName(),
                replace || h.hasPassword(),
                false,
                0,
                false,
                h.isCleanSession(),
                h.keepAliveTimeSeconds());
        MqttConnectPayload payload = new MqttConnectPayload(
                p.clientIdentifier(),
                null,
                (byte[]) null,
                replace ? username : p.userName(),
                replace ? password : p.passwordInBytes());
        return new MqttConnectMessage(m.fixedHeader(), header, payload);
    }
}
