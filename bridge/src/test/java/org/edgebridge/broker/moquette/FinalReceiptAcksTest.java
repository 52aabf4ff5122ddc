package org.edgebridge.broker.moquette;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttPublishVariableHeader;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttVersion;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.edgebridge.broker.Topics;
import org.edgebridge.code.ReceiptCode;
import org.edgebridge.receipt.Receipt;
import org.edgebridge.receipt.ReceiptSender;
import org.junit.jupiter.api.Test;

/**
 * {@link FinalReceiptAcks} in a Netty {@link EmbeddedChannel} with the MQTT messages Moquette and a device exchange:
 * only a final receipt's PUBACK is told, once, with the device and the command; the notes per connection are bounded.
 */
class FinalReceiptAcksTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant NOW = Instant.parse("2026-12-06T05:00:00Z");
    private final Topics topics = new Topics("devices");
    private final List<String> told = new ArrayList<>();
    private final EmbeddedChannel channel = new EmbeddedChannel(new FinalReceiptAcks(
            topics,
            (clientId, commandId, at) -> told.add(clientId + "/" + commandId + "@" + at),
            Clock.fixed(NOW, ZoneOffset.UTC)));

    private static byte[] bytes(Receipt r) throws Exception {
        return JSON.writeValueAsBytes(r);
    }

    private static Receipt stored(String commandId) {
        return new Receipt(commandId, "stored", false, null, null, null, 1L, "sha", false, "t", null);
    }

    private void connect(String clientId) {
        channel.writeInbound(MqttMessageBuilders.connect()
                .clientId(clientId)
                .protocolVersion(MqttVersion.MQTT_3_1_1)
                .build());
    }

    private void receipt(String clientId, int packetId, byte[] json) {
        channel.writeOutbound(new MqttPublishMessage(
                new MqttFixedHeader(MqttMessageType.PUBLISH, false, MqttQoS.AT_LEAST_ONCE, false, 0),
                new MqttPublishVariableHeader(topics.receiptTopic(clientId), packetId),
                Unpooled.wrappedBuffer(json)));
    }

    private void puback(int packetId) {
        channel.writeInbound(new MqttMessage(
                new MqttFixedHeader(MqttMessageType.PUBACK, false, MqttQoS.AT_MOST_ONCE, false, 2),
                MqttMessageIdVariableHeader.from(packetId)));
    }

    @Test
    void the_pubacks_of_final_receipts_are_told_and_nothing_else() throws Exception {
        connect("dev-1");
        receipt("dev-1", 1, bytes(stored("C-1")));
        receipt("dev-1", 2, bytes(ReceiptSender.rejected("C-1", ReceiptCode.INVALID_JSON, "no", "sha", "t")));
        receipt("dev-1", 3, bytes(ReceiptSender.retryLater("C-2", ReceiptCode.OUTBOX_FULL, "later", "sha", "t", 1000)));
        puback(1);
        puback(3);
        puback(9);
        assertThat(told)
                .as("a stored or retry_later receipt's PUBACK, and an unknown packet id: nothing")
                .isEmpty();
        puback(2);
        puback(2);
        assertThat(told).containsExactly("dev-1/C-1@" + NOW);
        assertThat((Object) channel.readInbound())
                .as("the messages go on to Moquette")
                .isNotNull();
    }

    @Test
    void at_most_64_final_receipts_are_noted_per_connection_the_oldest_note_goes_first() throws Exception {
        connect("dev-2");
        for (int id = 1; id <= FinalReceiptAcks.MAX_NOTED + 1; id++) {
            receipt("dev-2", id, bytes(ReceiptSender.rejected("C-" + id, ReceiptCode.INVALID_JSON, "y", "sha", "t")));
        }
        puback(1);
        puback(FinalReceiptAcks.MAX_NOTED + 1);
        assertThat(told).containsExactly("dev-2/C-" + (FinalReceiptAcks.MAX_NOTED + 1) + "@" + NOW);
    }

    @Test
    void a_receipt_on_another_topic_or_not_json_is_not_noted() throws Exception {
        connect("dev-3");
        receipt("other", 1, bytes(ReceiptSender.rejected("C-1", ReceiptCode.INVALID_JSON, "y", "sha", "t")));
        receipt("dev-3", 2, "not json".getBytes());
        receipt("dev-3", 3, ("{\"commandId\":\"" + "x".repeat(2000) + "\",\"final\":true}").getBytes());
        puback(1);
        puback(2);
        puback(3);
        assertThat(told).isEmpty();
    }
}
