package org.edgebridge.broker.moquette;

import static org.assertj.core.api.Assertions.assertThat;

import io.moquette.broker.NettyUtils;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttPublishVariableHeader;
import io.netty.handler.codec.mqtt.MqttQoS;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.edgebridge.broker.BrokerLimits;
import org.edgebridge.broker.InboundCommands;
import org.edgebridge.broker.InboundPublish;
import org.edgebridge.broker.Topics;
import org.junit.jupiter.api.Test;

/**
 * The rule of {@link PubackAfterCommit}, checked on generated cases (a printed seed; {@code -Dpuback.seed=N} replays
 * one): a device publishes commands of random sizes whenever its connection is read, the intake answers them in a
 * random order, now and then not at all (the connection closes). After every step:
 * <ol>
 *   <li>PUBACKs go out in the order of the PUBLISHes, each once, and only for a decided command whose predecessors are
 *       all decided;
 *   <li>the connection is not read exactly while the commands not yet PUBACKed are at least
 *       {@code maxAwaiting}, or their payloads at least {@code maxAwaitingBytes};
 *   <li>so their payloads never pass {@code maxAwaitingBytes} by more than the one command that reached it;
 *   <li>once every command is answered, every one is PUBACKed and the connection is read again.
 * </ol>
 */
class PubackAfterCommitSimulationTest {
    private static final int CASES = 3_000;

    @Test
    void pubacks_in_order_and_reading_stops_exactly_at_either_bound() {
        long seed = Long.getLong("puback.seed", System.nanoTime());
        System.out.println("PubackAfterCommitSimulationTest seed " + seed + " (-Dpuback.seed=" + seed + " replays it)");
        Random random = new Random(seed);
        for (int c = 0; c < CASES; c++) {
            long caseSeed = random.nextLong();
            new Case(caseSeed).run();
        }
    }

    /** One connection's life, from its own seed. */
    private static final class Case {
        private final long seed;
        private final Random random;
        private final int maxAwaiting;
        private final int maxBytes;
        private final List<InboundCommands.Answer> answers = new ArrayList<>();
        private final List<Integer> sizes = new ArrayList<>();
        private final Set<Integer> decided = new HashSet<>();
        private final EmbeddedChannel channel;
        private int pubacked; // commands PUBACKed, a prefix of those published (packet ids 1..)

        Case(long seed) {
            this.seed = seed;
            this.random = new Random(seed);
            this.maxAwaiting = 1 + random.nextInt(8);
            this.maxBytes = 1 + random.nextInt(5_000);
            InboundCommands intake = new InboundCommands() {
                @Override
                public void accept(InboundPublish publish) {
                    throw new AssertionError("a command with a PUBACK to wait for came without its answer");
                }

                @Override
                public void accept(InboundPublish publish, Answer answer) {
                    answers.add(answer);
                }
            };
            this.channel = new EmbeddedChannel(new PubackAfterCommit(
                    new Topics("devices"), Clock.systemUTC(), intake, new BrokerLimits(), maxAwaiting, maxBytes));
            NettyUtils.clientID(channel, "dev");
        }

        void run() {
            for (int step = 0; step < 200 && channel.isActive(); step++) {
                int roll = random.nextInt(100);
                if (channel.config().isAutoRead() && roll < 55) {
                    publish(random.nextInt(4) == 0 ? random.nextInt(3 * maxBytes + 1) : random.nextInt(200));
                } else if (roll < 98) {
                    answerOne();
                } else {
                    undecideOne();
                }
                check();
            }
            if (channel.isActive()) {
                for (int i = 0; i < answers.size(); i++) {
                    if (decided.add(i)) {
                        answers.get(i).decided();
                    }
                }
                check();
                assertThat(pubacked)
                        .as(this + ": every answered command PUBACKed")
                        .isEqualTo(sizes.size());
                assertThat(channel.config().isAutoRead())
                        .as(this + ": read again")
                        .isTrue();
            }
            channel.finishAndReleaseAll();
        }

        private void publish(int size) {
            int packetId = sizes.size() + 1;
            sizes.add(size);
            channel.writeInbound(new MqttPublishMessage(
                    new MqttFixedHeader(MqttMessageType.PUBLISH, false, MqttQoS.AT_LEAST_ONCE, false, 0),
                    new MqttPublishVariableHeader("devices/dev/commands/t", packetId),
                    Unpooled.wrappedBuffer(new byte[size])));
        }

        private void answerOne() {
            List<Integer> open = new ArrayList<>();
            for (int i = 0; i < answers.size(); i++) {
                if (!decided.contains(i)) {
                    open.add(i);
                }
            }
            if (!open.isEmpty()) {
                int i = open.get(random.nextInt(open.size()));
                decided.add(i);
                answers.get(i).decided();
            }
        }

        private void undecideOne() {
            for (int i = 0; i < answers.size(); i++) {
                if (decided.add(i)) {
                    answers.get(i).undecided();
                    assertThat(channel.isActive())
                            .as(this + ": closed when undecided")
                            .isFalse();
                    return;
                }
            }
        }

        private void check() {
            for (Object out; (out = channel.readOutbound()) != null; ) {
                MqttMessage puback = (MqttMessage) out;
                assertThat(puback.fixedHeader().messageType()).isEqualTo(MqttMessageType.PUBACK);
                int packetId = ((MqttMessageIdVariableHeader) puback.variableHeader()).messageId();
                assertThat(packetId)
                        .as(this + ": PUBACKs in publish order, each once")
                        .isEqualTo(pubacked + 1);
                assertThat(decided).as(this + ": PUBACK only after the answer").contains(packetId - 1);
                pubacked++;
            }
            if (!channel.isActive()) {
                return;
            }
            for (int i = 0; i < pubacked; i++) {
                assertThat(decided)
                        .as(this + ": no PUBACK before every earlier one is decided")
                        .contains(i);
            }
            int awaiting = sizes.size() - pubacked;
            long bytes = sizes.subList(pubacked, sizes.size()).stream()
                    .mapToLong(Integer::longValue)
                    .sum();
            boolean full = awaiting >= maxAwaiting || bytes >= maxBytes;
            assertThat(channel.config().isAutoRead())
                    .as(this + ": not read exactly while at a bound (" + awaiting + " commands, " + bytes + " bytes)")
                    .isEqualTo(!full);
            int last = sizes.isEmpty() ? 0 : sizes.get(sizes.size() - 1);
            assertThat(bytes)
                    .as(this + ": bytes awaiting past the bound by at most the command that reached it")
                    .isLessThan(maxBytes + (long) last + 1);
            if (decided.size() == sizes.size()) {
                assertThat(pubacked).as(this + ": all decided, all PUBACKed").isEqualTo(sizes.size());
            }
        }

        @Override
        public String toString() {
            return "case " + seed + " (maxAwaiting " + maxAwaiting + ", maxBytes " + maxBytes + ")";
        }
    }
}
