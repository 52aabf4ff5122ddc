package org.edgebridge.broker.moquette;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttPublishVariableHeader;
import io.netty.handler.codec.mqtt.MqttQoS;

/**
 * The PUBLISH of a receipt, as handed to Moquette's {@code internalPublish}: QoS 1, not retained, its payload in
 * an unreleasable heap buffer.
 *
 * <p>Moquette 0.17 bug answered: its H2 queue serializes a queued message lazily, at its next commit (once a
 * second); if the buffer has been released by then ("refCnt: 0"), the store closes and every session loop dies.
 * Found by the benchmark (4,000 {@code stored} receipts to 4 devices); built by hand because
 * {@code MqttMessageBuilders} copies the payload into a new, releasable buffer. A heap buffer needs no release:
 * the garbage collector frees it. Proven by {@code BenchQuickIT} (B1: a {@code stored} receipt for each of 4,000
 * commands of 4 devices; with a releasable buffer the store closed and the session loops died).
 */
final class ReceiptMessage {
    private ReceiptMessage() {}

    static MqttPublishMessage of(String topic, byte[] json) {
        return new MqttPublishMessage(
                new MqttFixedHeader(MqttMessageType.PUBLISH, false, MqttQoS.AT_LEAST_ONCE, false, 0),
                new MqttPublishVariableHeader(topic, 1),
                Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(json)));
    }
}
