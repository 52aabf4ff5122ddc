package org.edgebridge.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class StopWatchdogTest {
    private final Logger logger = (Logger) LoggerFactory.getLogger(StopWatchdog.class);
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

    @BeforeEach
    void capture() {
        lines.start();
        logger.addAppender(lines);
    }

    @AfterEach
    void release() {
        logger.detachAppender(lines);
    }

    @Test
    void a_stop_that_hangs_logs_every_threads_stack_once_with_the_frame_it_waits_in() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        Thread stuck = new Thread(
                () -> {
                    try {
                        never.await();
                    } catch (InterruptedException e) {
                        // the test ends it
                    }
                },
                "stuck-closing-part");
        stuck.start();
        try (StopWatchdog watchdog = StopWatchdog.watch("the part", Duration.ofMillis(200))) {
            await().atMost(Duration.ofSeconds(10)).until(() -> !lines.list.isEmpty());
            String line = lines.list.get(0).getFormattedMessage();
            assertThat(line)
                    .startsWith("the part has not stopped after 200 ms")
                    .contains("\"stuck-closing-part\" WAITING")
                    .contains("java.util.concurrent.CountDownLatch.await(");
            assertThat(lines.list).hasSize(1);
        } finally {
            stuck.interrupt();
            stuck.join(5_000);
        }
    }

    @Test
    void a_stop_that_ends_in_time_logs_nothing() throws Exception {
        StopWatchdog watchdog = StopWatchdog.watch("the part", Duration.ofMillis(300));
        watchdog.close();
        Thread thread = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("stop-watchdog"))
                .findFirst()
                .orElse(null);
        if (thread != null) {
            thread.join(5_000);
        }
        assertThat(thread == null || !thread.isAlive())
                .as("the watchdog's thread ended with the stop")
                .isTrue();
        assertThat(lines.list).isEmpty();
    }
}
