package org.edgebridge.broker.moquette;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.edgebridge.broker.BrokerSettings.Transport;
import org.junit.jupiter.api.Test;

/** Which transport {@code mqtt.transport} gets, where epoll loads and where it does not. The real sockets: MqttTransportIT. */
class MqttListenersTest {
    private static final Throwable NOT_HERE = new UnsupportedOperationException("no native library for this system");

    @Test
    void auto_takes_epoll_where_it_loads_and_nio_with_the_reason_where_it_does_not() {
        assertThat(MqttListeners.choose(Transport.AUTO, null).epoll()).isTrue();
        MqttListeners.Choice fallback = MqttListeners.choose(Transport.AUTO, NOT_HERE);
        assertThat(fallback.epoll()).isFalse();
        assertThat(fallback.why())
                .contains("mqtt.transport=auto")
                .contains("native epoll does not load here")
                .contains("no native library for this system");
    }

    @Test
    void nio_never_takes_epoll() {
        assertThat(MqttListeners.choose(Transport.NIO, null).epoll()).isFalse();
        assertThat(MqttListeners.choose(Transport.NIO, NOT_HERE).epoll()).isFalse();
    }

    @Test
    void epoll_where_it_does_not_load_names_the_key_the_cause_and_the_fix() {
        assertThat(MqttListeners.choose(Transport.EPOLL, null).epoll()).isTrue();
        assertThatThrownBy(() -> MqttListeners.choose(Transport.EPOLL, NOT_HERE))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("mqtt.transport=epoll")
                .hasMessageContaining("no native library for this system")
                .hasMessageContaining("set mqtt.transport=auto");
    }
}
