package org.edgebridge.broker.moquette;

import io.moquette.broker.security.IAuthorizatorPolicy;
import io.moquette.broker.subscriptions.Topic;
import java.util.function.BiConsumer;
import org.edgebridge.broker.Topics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moquette 0.17 bugs answered: an exception here kills a session loop for good (never throws); a QoS 1 DUP resend
 * kills a session loop when any subscription matches its topic (Moquette #750; no filter but a device's own receipt
 * topic is granted, so none can); a denied PUBLISH gets neither PUBACK nor disconnect (the denial is reported, and
 * {@code MoquetteBroker} closes the connection from its own thread). Proven by {@code EndToEndIT} (a PUBLISH on
 * another device's topic closes the connection, a SUBSCRIBE outside its own receipts gets 0x80) and
 * {@code LogLinesIT}.
 *
 * <p>The per-device ACL (docs/protocol.md §1.3): a device may publish only to its own command topics and subscribe only
 * to its own receipt topic. Called by Moquette on a session-loop thread, before the PUBACK.
 *
 * <p>Never throws: in Moquette 0.17 an exception here kills a session-loop thread for good. Because no
 * filter other than a device's exact receipt topic is ever granted, no subscription can match a command
 * topic, which also keeps 0.17's DUP-resend crash (Moquette #750) from being reachable.
 */
final class DeviceAuthorizer implements IAuthorizatorPolicy {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceAuthorizer.class);

    private final Topics topics;
    private final BiConsumer<String, String> onDeniedPublish;
    private final BiConsumer<String, String> onDeniedSubscribe;

    /**
     * @param onDeniedPublish called with (clientId, topic) for a refused PUBLISH; must not block
     * @param onDeniedSubscribe called with (clientId, filter) for a refused SUBSCRIBE; must not block
     */
    DeviceAuthorizer(
            Topics topics, BiConsumer<String, String> onDeniedPublish, BiConsumer<String, String> onDeniedSubscribe) {
        this.topics = topics;
        this.onDeniedPublish = onDeniedPublish;
        this.onDeniedSubscribe = onDeniedSubscribe;
    }

    @Override
    public boolean canWrite(Topic topic, String user, String client) {
        try {
            String name = String.valueOf(topic);
            if (topics.commandType(client, name) != null) {
                return true;
            }
            onDeniedPublish.accept(client, name);
            return false;
        } catch (RuntimeException e) {
            LOG.error("ACL check of a PUBLISH failed; denied", e);
            return false;
        }
    }

    @Override
    public boolean canRead(Topic topic, String user, String client) {
        try {
            String filter = String.valueOf(topic);
            if (Topics.isUsableClientId(client) && filter.equals(topics.receiptTopic(client))) {
                return true;
            }
            onDeniedSubscribe.accept(client, filter);
            return false;
        } catch (RuntimeException e) {
            LOG.error("ACL check of a SUBSCRIBE failed; denied", e);
            return false;
        }
    }
}
