package org.edgebridge.broker.moquette;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import java.util.function.BiPredicate;
import org.edgebridge.broker.Topics;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moquette 0.17 bug answered: after a crash a persistent session can come back without its last subscription and
 * a CONNACK that still says {@code sessionPresent=1}. Proven by {@code CrashWindowIT} (before: 2 failures in 15
 * windows; after: the check fired twice in 15 windows and every window passed).
 *
 * <p>Makes {@code sessionPresent=1} mean what a device takes it to mean: its receipt subscription is there.
 *
 * <p>After a crash, Moquette 0.17 can restore a persistent session from its store without the subscription
 * the device made right before the crash (the store commits once a second); it then answers
 * {@code sessionPresent=1}, the device trusts it and does not subscribe again, and no receipt ever reaches it
 * (seen in CrashWindowIT: the device's resends were answered, and the answers went nowhere). This handler sees
 * the CONNECT and Moquette's CONNACK; when the CONNACK says the session is present but the broker would not
 * route the device's receipt topic to it, the device is told {@code sessionPresent=0}, so that it subscribes
 * again (MQTT 3.1.1 §3.2.2.2). Queued receipts of the session are still delivered once it has.
 *
 * <p>One instance per channel; runs on the channel's event loop.
 */
final class SessionSubscriptionCheck extends ChannelDuplexHandler {
    private static final Logger LOG = LoggerFactory.getLogger(SessionSubscriptionCheck.class);

    private final BiPredicate<String, String> routesTo;
    private final Topics topics;
    private @Nullable String clientId;

    /** @param routesTo (clientId, topic) → whether the broker routes that topic to that client */
    SessionSubscriptionCheck(BiPredicate<String, String> routesTo, Topics topics) {
        this.routesTo = routesTo;
        this.topics = topics;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (msg instanceof MqttConnectMessage connect) {
            clientId = connect.payload().clientIdentifier();
        }
        super.channelRead(ctx, msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        if (msg instanceof MqttConnAckMessage ack
                && ack.variableHeader().isSessionPresent()
                && ack.variableHeader().connectReturnCode() == MqttConnectReturnCode.CONNECTION_ACCEPTED
                && clientId != null
                && !routesTo.test(clientId, topics.receiptTopic(clientId))) {
            LOG.warn(
                    "session of {} came back without its receipt subscription (lost in a crash): CONNACK says "
                            + "sessionPresent=0 so that the device subscribes again",
                    clientId);
            super.write(
                    ctx,
                    MqttMessageBuilders.connAck()
                            .returnCode(MqttConnectReturnCode.CONNECTION_ACCEPTED)
                            .sessionPresent(false)
                            .build(),
                    promise);
            return;
        }
        super.write(ctx, msg, promise);
    }
}
