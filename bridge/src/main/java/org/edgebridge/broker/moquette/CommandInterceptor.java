package org.edgebridge.broker.moquette;

import io.moquette.interception.AbstractInterceptHandler;
import io.moquette.interception.messages.InterceptConnectMessage;
import io.moquette.interception.messages.InterceptConnectionLostMessage;
import io.moquette.interception.messages.InterceptDisconnectMessage;
import io.moquette.interception.messages.InterceptPublishMessage;
import io.netty.buffer.ByteBuf;
import java.time.Clock;
import java.util.function.Consumer;
import org.edgebridge.broker.DeviceRegistry;
import org.edgebridge.broker.InboundCommands;
import org.edgebridge.broker.InboundPublish;
import org.edgebridge.broker.Topics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moquette 0.17 bugs answered: the PUBACK is sent before {@code onPublish} runs (so a command's QoS 1 PUBLISH is taken
 * before Moquette by {@link PubackAfterCommit}, and only what Moquette still carries comes here: Last Wills, QoS 0 and
 * 2 commands, and every command with {@code mqtt.pubackAfterCommit=false}, whose custody is the {@code stored}
 * receipt, never the PUBACK); a payload read after {@code super.onPublish} is already released (Moquette #773), so it
 * is copied first and released once, in {@code finally}; {@code AbstractInterceptHandler} has no
 * {@code onSessionLoopError}, which is where a dead session loop is reported. Proven by {@code EndToEndIT} and
 * {@code PubackAfterCommitIT} (the switch off: PUBACKed, not committed, lost by a device that trusts the PUBACK).
 *
 * <p>Moquette's callbacks, adapted. Moquette runs them on its interceptor pool (configured to exactly one
 * thread, so calls are in broker-wide arrival order) after it has already sent the PUBACK; only
 * {@link #onSessionLoopError} runs on the dying session-loop thread.
 */
final class CommandInterceptor extends AbstractInterceptHandler {
    private static final Logger LOG = LoggerFactory.getLogger(CommandInterceptor.class);

    private final Topics topics;
    private final Clock clock;
    private final InboundCommands commands;
    private final DeviceRegistry devices;
    private final Consumer<Throwable> onLoopDeath;

    CommandInterceptor(
            Topics topics,
            Clock clock,
            InboundCommands commands,
            DeviceRegistry devices,
            Consumer<Throwable> onLoopDeath) {
        this.topics = topics;
        this.clock = clock;
        this.commands = commands;
        this.devices = devices;
        this.onLoopDeath = onLoopDeath;
    }

    @Override
    public String getID() {
        return "edge-bridge-intake";
    }

    @Override
    public void onPublish(InterceptPublishMessage msg) {
        ByteBuf buffer = msg.getPayload();
        try {
            String clientId = msg.getClientID();
            String topic = msg.getTopicName();
            String type = topics.commandType(clientId, topic);
            if (type == null) {
                LOG.warn("PUBLISH of {} on {} passed the ACL but is not a command topic; ignored", clientId, topic);
                return;
            }
            byte[] payload = new byte[buffer.readableBytes()];
            buffer.getBytes(buffer.readerIndex(), payload);
            commands.accept(new InboundPublish(clientId, topic, type, payload, clock.instant()));
        } catch (RuntimeException e) {
            LOG.error("intake of a PUBLISH from {} failed; the device will resend it", msg.getClientID(), e);
        } finally {
            buffer.release();
        }
    }

    @Override
    public void onConnect(InterceptConnectMessage msg) {
        devices.connected(msg.getClientID(), msg.isCleanSession());
    }

    @Override
    public void onDisconnect(InterceptDisconnectMessage msg) {
        devices.disconnected(msg.getClientID());
    }

    @Override
    public void onConnectionLost(InterceptConnectionLostMessage msg) {
        devices.disconnected(msg.getClientID());
    }

    @Override
    public void onSessionLoopError(Throwable error) {
        onLoopDeath.accept(error);
    }
}
