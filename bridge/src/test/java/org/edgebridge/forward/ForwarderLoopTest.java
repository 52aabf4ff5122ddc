package org.edgebridge.forward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.edgebridge.worker.Workers;
import org.junit.jupiter.api.Test;

/** The loop's threads and waits, with steps that say how long to wait (an hour: only a wake-up or close ends it). */
class ForwarderLoopTest {
    private static final Duration LONG = Duration.ofHours(1);

    @Test
    void a_wake_ends_an_idle_wait_at_once() {
        ForwarderLoop loop = new ForwarderLoop(Duration.ofMillis(1));
        AtomicInteger steps = new AtomicInteger();
        loop.addThreads(new Workers(() -> {}), 1, () -> {
            steps.incrementAndGet();
            return new StepResult.Idle(ForwarderState.IDLE, LONG);
        });
        loop.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> steps.get() == 1);
        loop.wake();
        await().atMost(Duration.ofSeconds(10)).until(() -> steps.get() == 2);
        loop.close(Duration.ofSeconds(5));
        assertThat(loop.running()).isFalse();
    }

    @Test
    void a_wake_does_not_end_a_wait_that_is_not_idle_but_close_does() {
        ForwarderLoop loop = new ForwarderLoop(Duration.ZERO);
        AtomicInteger steps = new AtomicInteger();
        AtomicReference<Thread> thread = new AtomicReference<>();
        loop.addThreads(new Workers(() -> {}), 1, () -> {
            thread.set(Thread.currentThread());
            steps.incrementAndGet();
            return new StepResult.Held(ForwarderState.BACKING_OFF, LONG);
        });
        loop.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> steps.get() == 1);
        loop.wake();
        loop.close(Duration.ofSeconds(5));
        assertThat(steps.get()).as("still waiting out the backoff when closed").isEqualTo(1);
        assertThat(thread.get().isAlive()).isFalse();
    }

    @Test
    void every_worker_runs_steps_on_its_own_named_thread_and_a_rate_limit_wait_ends_on_close() {
        ForwarderLoop loop = new ForwarderLoop(Duration.ZERO);
        java.util.Set<String> names = java.util.concurrent.ConcurrentHashMap.newKeySet();
        AtomicInteger waitsEnded = new AtomicInteger();
        loop.addThreads(new Workers(() -> {}), 2, () -> {
            names.add(Thread.currentThread().getName());
            loop.sleep(LONG); // a step waiting for its rate-limit permit
            waitsEnded.incrementAndGet();
            return new StepResult.Sent(1, Duration.ZERO);
        });
        loop.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> names.size() == 2);
        loop.close(Duration.ofSeconds(5));
        assertThat(names).containsExactlyInAnyOrder("forwarder-1", "forwarder-2");
        assertThat(waitsEnded.get()).isEqualTo(2);
    }
}
