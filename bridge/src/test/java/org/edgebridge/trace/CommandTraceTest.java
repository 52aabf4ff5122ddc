package org.edgebridge.trace;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Test;

class CommandTraceTest {

    @Test
    void without_a_recording_that_enables_it_nothing_is_read_or_kept() {
        assertThat(CommandTrace.now()).isZero();
        CommandTrace.stored(1, "C-1", 5);
        CommandTrace.mark(CommandTrace.Step.CLAIMED, List.of(1L), id -> id);
    }

    @Test
    void a_recording_that_enables_the_event_gets_every_step_with_its_row_and_time() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        CountDownLatch three = new CountDownLatch(3);
        try (RecordingStream stream = new RecordingStream()) {
            stream.enable(CommandStepEvent.NAME);
            stream.onEvent(CommandStepEvent.NAME, e -> {
                seen.add(e.getLong("rowId") + " " + e.getString("commandId") + " " + e.getString("step") + " "
                        + (e.getLong("nanoTime") != 0));
                three.countDown();
            });
            stream.startAsync(); // the recording starts, and enables the event, before this returns
            long committed = CommandTrace.now();
            assertThat(committed).as("read while recorded").isNotZero();
            CommandTrace.stored(7, "C-7", committed);
            CommandTrace.mark(CommandTrace.Step.FINAL_SENT, List.of(7L), id -> id);
            assertThat(three.await(30, TimeUnit.SECONDS))
                    .as("a stream hands events over about once a second")
                    .isTrue();
        }
        assertThat(seen)
                .containsExactly("7 C-7 STORED_COMMITTED true", "7 C-7 STORED_SENT true", "7 null FINAL_SENT true");
    }
}
