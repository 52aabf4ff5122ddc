package org.edgebridge.broker.moquette;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class BoundedStopTest {
    @Test
    void a_stop_that_spins_for_ever_is_left_behind_at_the_limit_on_a_daemon_thread() throws Exception {
        AtomicBoolean release = new AtomicBoolean();
        CountDownLatch spinning = new CountDownLatch(1);
        Thread[] stopper = new Thread[1];
        boolean ended = BoundedStop.run(
                () -> {
                    stopper[0] = Thread.currentThread();
                    spinning.countDown();
                    while (!release.get()) {
                        Thread.onSpinWait(); // what h2-mvstore's closeStore does after a failed background write
                    }
                },
                Duration.ofMillis(200),
                "broker-stop");
        assertThat(ended).isFalse();
        assertThat(spinning.getCount()).isZero();
        assertThat(stopper[0].isDaemon()).as("does not keep the process alive").isTrue();
        release.set(true);
        stopper[0].join(5_000);
        assertThat(stopper[0].isAlive()).isFalse();
    }

    @Test
    void a_stop_that_ends_or_throws_is_waited_for() {
        assertThat(BoundedStop.run(() -> {}, Duration.ofSeconds(5), "broker-stop"))
                .isTrue();
        assertThat(BoundedStop.run(
                        () -> {
                            throw new IllegalStateException("store closed");
                        },
                        Duration.ofSeconds(5),
                        "broker-stop"))
                .isTrue();
    }
}
