package org.edgebridge.broker.moquette;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.NettyRuntime;
import org.junit.jupiter.api.Test;

/** The I/O threads {@code mqtt.ioThreads} gives the listeners. Their sockets: every IT that connects a device. */
class MqttListenersTest {
    @Test
    void io_threads_are_what_the_key_says_and_0_is_nettys_two_per_core() {
        try (MqttListeners two = new MqttListeners(2)) {
            assertThat(two.ioThreads()).isEqualTo(2);
        }
        try (MqttListeners byDefault = new MqttListeners(0)) {
            assertThat(byDefault.ioThreads()).isEqualTo(2 * NettyRuntime.availableProcessors());
        }
    }
}
