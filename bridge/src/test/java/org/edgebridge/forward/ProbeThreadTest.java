package org.edgebridge.forward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.edgebridge.outbox.ClaimedEvent;
import org.edgebridge.outbox.SentRequest;
import org.edgebridge.worker.Workers;
import org.junit.jupiter.api.Test;

/** The probe's own thread: one probe at a time, taken once, never lost at a stop; with a real thread. */
class ProbeThreadTest {
    private static final List<ClaimedEvent> PROBE = List.of(new ClaimedEvent(
            7,
            "dev-1",
            "C-7",
            1,
            "devices/dev-1/commands/t",
            "t",
            "{}".getBytes(StandardCharsets.UTF_8),
            "a".repeat(64),
            Instant.EPOCH,
            1,
            0,
            Optional.empty()));

    private static CentralCall.Done answered() {
        return new CentralCall.Done(new RequestOutcome.Answered(List.of(), List.of()), SentRequest.unmeasured("b-1"));
    }

    @Test
    void a_probe_central_takes_long_on_is_sent_on_its_own_thread_and_taken_once_when_done() throws Exception {
        CountDownLatch central = new CountDownLatch(1);
        AtomicInteger wakes = new AtomicInteger();
        ProbeThread slot = new ProbeThread(new Workers(() -> {}), wakes::incrementAndGet);
        slot.start();
        try {
            slot.send(PROBE, () -> {
                try {
                    central.await(30, TimeUnit.SECONDS); // central hangs until the test lets it answer
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return answered();
            });
            assertThat(slot.awaitDone(Duration.ofMillis(50)))
                    .as("not done within the grace: the step goes on")
                    .isEmpty();
            assertThat(slot.busy()).isTrue();
            assertThat(slot.eventsOut()).isEqualTo(1);
            assertThatThrownBy(() -> slot.send(PROBE, ProbeThreadTest::answered))
                    .isInstanceOf(IllegalStateException.class);
            central.countDown();
            assertThat(slot.awaitDone(Duration.ofSeconds(10)))
                    .get()
                    .satisfies(d -> assertThat(d.events()).isEqualTo(PROBE));
            // the wake runs on the probe's thread right after the outcome is there: awaited, not assumed
            await().atMost(Duration.ofSeconds(10)).until(() -> wakes.get() == 1);
            assertThat(slot.takeDone()).as("taken once").isEmpty();
            assertThat(slot.busy()).isFalse();
        } finally {
            assertThat(slot.close(Duration.ofSeconds(1))).isEmpty();
        }
    }

    @Test
    void a_stop_during_a_probe_interrupts_it_after_the_budget_and_hands_its_events_back() throws Exception {
        CountDownLatch sending = new CountDownLatch(1);
        ProbeThread slot = new ProbeThread(new Workers(() -> {}), () -> {});
        slot.start();
        slot.send(PROBE, () -> {
            sending.countDown();
            try {
                new CountDownLatch(1)
                        .await(60, TimeUnit.SECONDS); // central never answers; the stop's interrupt ends it
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return answered();
        });
        assertThat(sending.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(slot.close(Duration.ofMillis(200)))
                .as("maybe sent: the caller releases them")
                .isEqualTo(PROBE);
    }

    @Test
    void before_it_is_started_a_probe_is_sent_on_the_callers_thread() {
        ProbeThread slot = new ProbeThread(new Workers(() -> {}), () -> {});
        Thread caller = Thread.currentThread();
        Thread[] sentOn = new Thread[1];
        slot.send(PROBE, () -> {
            sentOn[0] = Thread.currentThread();
            return answered();
        });
        assertThat(sentOn[0]).isSameAs(caller);
        assertThat(slot.takeDone()).isPresent();
        assertThat(slot.close(Duration.ofSeconds(1))).isEmpty();
    }
}
