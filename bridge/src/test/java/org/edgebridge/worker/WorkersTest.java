package org.edgebridge.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class WorkersTest {
    @Test
    void an_error_that_ends_a_worker_is_recorded_and_acted_on_once() throws Exception {
        AtomicInteger deaths = new AtomicInteger();
        Workers workers = new Workers(deaths::incrementAndGet);
        Thread first = workers.thread("w1", () -> {
            throw new StackOverflowError("deep");
        });
        Thread second = workers.thread("w2", () -> {
            throw new IllegalStateException("unexpected");
        });
        first.start();
        first.join();
        second.start();
        second.join();
        await().atMost(Duration.ofSeconds(5)).until(() -> deaths.get() == 1);
        assertThat(workers.death())
                .hasValueSatisfying(d -> assertThat(d).startsWith("w1: java.lang.StackOverflowError"));
    }

    @Test
    void a_part_lost_for_good_is_acted_on_as_a_dead_worker() {
        AtomicInteger deaths = new AtomicInteger();
        Workers workers = new Workers(deaths::incrementAndGet);
        workers.lost("broker", new IllegalStateException("the MQTT broker started but is not listening"));
        await().atMost(Duration.ofSeconds(5)).until(() -> deaths.get() == 1);
        assertThat(workers.death())
                .hasValueSatisfying(d -> assertThat(d).startsWith("broker: java.lang.IllegalStateException"));
    }

    @Test
    void a_worker_that_returns_is_not_a_death() throws Exception {
        AtomicInteger deaths = new AtomicInteger();
        Workers workers = new Workers(deaths::incrementAndGet);
        Thread t = workers.thread("w", () -> {});
        t.start();
        t.join();
        assertThat(workers.death()).isEmpty();
        assertThat(deaths).hasValue(0);
    }
}
