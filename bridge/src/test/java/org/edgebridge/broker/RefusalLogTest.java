package org.edgebridge.broker;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import org.edgebridge.TestClock;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class RefusalLogTest {
    @Test
    void text_from_a_client_cannot_forge_log_lines() {
        assertThat(RefusalLog.quote("dev\nINFO forged")).isEqualTo("'dev\\u000aINFO forged'");
        assertThat(RefusalLog.quote("a'b\\c\r\u2028\u202e")).isEqualTo("'a\\'b\\\\c\\u000d\\u2028\\u202e'");
        assertThat(RefusalLog.quote("x".repeat(500))).hasSize(163).endsWith("…'");
        assertThat(RefusalLog.quote(null)).isEqualTo("null");
        assertThat(RefusalLog.quote("field-node-07")).isEqualTo("'field-node-07'");
    }

    @Test
    void one_line_per_kind_and_client_id_per_interval_and_the_next_says_how_many_were_left_out() {
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        TestClock clock = new TestClock();
        RefusalLog log = logTo(lines, clock);
        for (int i = 0; i < 50; i++) {
            log.info("credentials", "dev-a", "refused dev-a");
            log.info("credentials", "dev-b", "refused dev-b");
        }
        log.warn("will", "dev-a", "will of dev-a");
        assertThat(lines.list)
                .extracting(ILoggingEvent::getFormattedMessage)
                .containsExactly("refused dev-a", "refused dev-b", "will of dev-a");
        clock.advance(Duration.ofSeconds(61));
        log.info("credentials", "dev-a", "refused dev-a");
        assertThat(lines.list.get(3).getFormattedMessage())
                .isEqualTo("refused dev-a (49 more like it in the last 60 s)");
    }

    @Test
    void
            fifteen_thousand_refusals_of_one_kind_with_random_client_ids_write_ten_lines_a_minute_and_the_next_says_how_many_were_left_out() {
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        TestClock clock = new TestClock();
        RefusalLog log = logTo(lines, clock);
        for (int i = 0; i < 15_000; i++) {
            log.warn("will", "random-" + i, "refused random-" + i);
        }
        log.warn("credentials", "dev-a", "refused dev-a");
        assertThat(lines.list).hasSize(RefusalLog.LINES_PER_KIND + 1);
        assertThat(log.leftOut()).isEqualTo(15_000 - RefusalLog.LINES_PER_KIND);
        clock.advance(Duration.ofSeconds(61));
        log.warn("will", "random-x", "refused random-x");
        assertThat(lines.list.get(lines.list.size() - 1).getFormattedMessage())
                .isEqualTo(
                        "refused random-x (and 14990 lines of kind will about other clients left out in the last 60 s)");
    }

    /** A refusal log with a 60 s interval whose lines land in {@code lines}. */
    private static RefusalLog logTo(ListAppender<ILoggingEvent> lines, TestClock clock) {
        Logger logger = (Logger) LoggerFactory.getLogger("refusal-log-test-" + System.identityHashCode(lines));
        lines.start();
        logger.addAppender(lines);
        return new RefusalLog(logger, clock, Duration.ofSeconds(60));
    }
}
