package org.edgebridge.broker.moquette;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class InboundBackPressureTest {
    @Test
    void a_connection_stops_being_read_while_too_many_publishes_wait_for_the_intake_and_resumes_below_half() {
        AtomicInteger waiting = new AtomicInteger();
        InboundBackPressure backPressure = new InboundBackPressure(waiting::get, 10);
        EmbeddedChannel device = new EmbeddedChannel();
        EmbeddedChannel other = new EmbeddedChannel();

        waiting.set(9);
        backPressure.published(device);
        assertThat(device.config().isAutoRead()).as("below the high water").isTrue();

        waiting.set(10);
        backPressure.published(device);
        assertThat(device.config().isAutoRead()).as("at the high water").isFalse();
        assertThat(other.config().isAutoRead())
                .as("a connection that brings nothing is not paused")
                .isTrue();

        waiting.set(6);
        device.advanceTimeBy(InboundBackPressure.CHECK_MILLIS, TimeUnit.MILLISECONDS);
        device.runScheduledPendingTasks();
        assertThat(device.config().isAutoRead()).as("still above half").isFalse();

        waiting.set(5);
        device.advanceTimeBy(InboundBackPressure.CHECK_MILLIS, TimeUnit.MILLISECONDS);
        device.runScheduledPendingTasks();
        assertThat(device.config().isAutoRead()).as("at half: read again").isTrue();
    }

    @Test
    void a_closed_connection_is_not_checked_again() {
        AtomicInteger waiting = new AtomicInteger(100);
        InboundBackPressure backPressure = new InboundBackPressure(waiting::get, 10);
        EmbeddedChannel device = new EmbeddedChannel();
        backPressure.published(device);
        device.close();
        waiting.set(0);
        device.advanceTimeBy(InboundBackPressure.CHECK_MILLIS, TimeUnit.MILLISECONDS);
        device.runScheduledPendingTasks();
        assertThat(device.config().isAutoRead()).isFalse();
    }
}
