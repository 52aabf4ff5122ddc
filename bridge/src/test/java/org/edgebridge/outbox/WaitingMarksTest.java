package org.edgebridge.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** The marks that wait for the writer's next transaction: bounded, counted past the bound, given back first. */
class WaitingMarksTest {
    @Test
    void past_the_bound_marks_are_counted_not_kept() {
        WaitingMarks<Long> marks = new WaitingMarks<>(OutboxWriter.MAX_WAITING_ACKS);
        marks.add(LongStream.range(0, OutboxWriter.MAX_WAITING_ACKS - 1).boxed().toList());
        marks.add(List.of(-1L, -2L, -3L));
        assertThat(marks.dropped()).isEqualTo(2);
        List<Long> taken = marks.take();
        assertThat(taken).hasSize(OutboxWriter.MAX_WAITING_ACKS).endsWith(-1L);
        assertThat(marks.waiting()).isFalse();
        marks.add(List.of(7L));
        marks.giveBack(taken);
        List<Long> again = marks.take();
        assertThat(again)
                .as("given back first, within the bound")
                .hasSize(OutboxWriter.MAX_WAITING_ACKS)
                .startsWith(0L, 1L);
        assertThat(marks.dropped()).as("the newer mark did not fit").isEqualTo(3);
    }
}
