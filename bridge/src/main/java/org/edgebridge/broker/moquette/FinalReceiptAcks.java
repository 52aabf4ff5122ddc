package org.edgebridge.broker.moquette;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import java.io.IOException;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import org.edgebridge.broker.ReceiptAcks;
import org.edgebridge.broker.Topics;
import org.jspecify.annotations.Nullable;

/**
 * Moquette 0.17 limit answered: its interceptor's {@code onMessageAcknowledged} is never called (nothing in 0.17 calls
 * {@code notifyMessageAcknowledged}), so the bridge cannot learn from Moquette that a device took its receipt. This
 * handler sits between the codec and Moquette's protocol handler: it notes the packet id of each final receipt
 * Moquette writes to the device (QoS 1 on the device's receipt topic, {@code "final":true}), and when the device's
 * PUBACK of that packet id comes, tells {@link ReceiptAcks} (the command's timeline). Only final receipts are noted: a
 * {@code stored} receipt's PUBACK is not recorded.
 *
 * <p>Bounded: at most {@link #MAX_NOTED} packet ids per connection (Moquette keeps 10 receipts in flight to a device;
 * past the bound the oldest note is dropped and its PUBACK goes unrecorded). Reads only the start of a receipt (its
 * first fields, {@link #HEAD_BYTES}), never consumes the message. One instance per channel; runs on its event loop.
 */
final class FinalReceiptAcks extends ChannelDuplexHandler {
    static final int MAX_NOTED = 64;
    /**
     * Enough for a receipt's first fields ({@code commandId}, at most 128 characters, {@code status}, {@code final}).
     */
    static final int HEAD_BYTES = 1024;

    private static final JsonFactory JSON = new JsonFactory();

    private final Topics topics;
    private final ReceiptAcks acks;
    private final Clock clock;
    private @Nullable String clientId;
    private @Nullable String receiptTopic;
    private final Map<Integer, String> noted = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, String> eldest) {
            return size() > MAX_NOTED;
        }
    };

    FinalReceiptAcks(Topics topics, ReceiptAcks acks, Clock clock) {
        this.topics = topics;
        this.acks = acks;
        this.clock = clock;
    }

    /** A PUBACK of a noted packet id is told; a CONNECT names the device (and its receipt topic). */
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        String device = clientId;
        if (device != null
                && msg instanceof MqttMessage m
                && m.fixedHeader() != null
                && m.fixedHeader().messageType() == MqttMessageType.PUBACK
                && m.variableHeader() instanceof MqttMessageIdVariableHeader id) {
            String commandId = noted.remove(id.messageId());
            if (commandId != null) {
                acks.acked(device, commandId, clock.instant());
            }
        } else if (msg instanceof MqttConnectMessage connect) {
            String named = connect.payload().clientIdentifier();
            clientId = named;
            receiptTopic = topics.receiptTopic(named);
            noted.clear();
        }
        super.channelRead(ctx, msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        if (receiptTopic != null
                && msg instanceof MqttPublishMessage publish
                && publish.fixedHeader().qosLevel() == MqttQoS.AT_LEAST_ONCE
                && receiptTopic.equals(publish.variableHeader().topicName())) {
            String commandId = finalReceiptOf(publish.content());
            if (commandId != null) {
                noted.put(publish.variableHeader().packetId(), commandId);
            }
        }
        super.write(ctx, msg, promise);
    }

    /** The commandId of a final receipt, read from the start of its JSON; null for any other receipt or bytes. */
    static @Nullable String finalReceiptOf(ByteBuf content) {
        byte[] head =
                ByteBufUtil.getBytes(content, content.readerIndex(), Math.min(HEAD_BYTES, content.readableBytes()));
        String commandId = null;
        boolean isFinal = false;
        try (JsonParser p = JSON.createParser(head)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME && (commandId == null || !isFinal)) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if ("commandId".equals(field) && value == JsonToken.VALUE_STRING) {
                    commandId = p.getText();
                } else if ("final".equals(field)) {
                    if (value != JsonToken.VALUE_TRUE) {
                        return null;
                    }
                    isFinal = true;
                } else {
                    p.skipChildren();
                }
            }
        } catch (IOException e) {
            // a receipt longer than the head whose commandId or final flag comes late: not noted
        }
        return isFinal ? commandId : null;
    }
}
