package org.edgebridge.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

class ThreadCpuTest {
    @Test
    void threads_of_one_pool_are_one_group() {
        assertThat(ThreadCpu.group("nioEventLoopGroup-3-2")).isEqualTo("nioEventLoopGroup");
        assertThat(ThreadCpu.group("pool-3-thread-12")).isEqualTo("pool-thread");
        assertThat(ThreadCpu.group("outbox-writer")).isEqualTo("outbox-writer");
        assertThat(ThreadCpu.group("42"))
                .as("a name of numbers only stays itself")
                .isEqualTo("42");
    }

    @Test
    void a_stat_line_gives_user_plus_system_seconds_even_with_spaces_and_parentheses_in_the_name() {
        // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime …
        String stat = "123 (C2 Compiler (x)) S 1 1 1 0 -1 4194368 10 0 0 0 250 50 0 0 20 0 1 0 100 0 0";
        assertThat(ThreadCpu.cpuSeconds(stat)).isEqualTo(3.0);
    }

    @Test
    void the_cost_per_unit_is_each_threads_growth_summed_by_group_largest_first() {
        ThreadCpu before = new ThreadCpu(Map.of(
                1L, new ThreadCpu.Task("a", 1.0, 100),
                2L, new ThreadCpu.Task("b", 2.0, 10),
                3L, new ThreadCpu.Task("b", 4.0, 10), // ends inside the window: its share is lost, not subtracted
                4L, new ThreadCpu.Task("idle", 1.0, 5)));
        ThreadCpu after = new ThreadCpu(Map.of(
                1L, new ThreadCpu.Task("a", 1.5, 1_100),
                2L, new ThreadCpu.Task("b", 3.0, 20),
                4L, new ThreadCpu.Task("idle", 1.0, 5.5),
                5L, new ThreadCpu.Task("new", 0.25, 5))); // started inside the window: all of it counts
        assertThat(after.microsPerUnitSince(before, 1_000))
                .as("groups under 1 µs left out")
                .containsExactly(Map.entry("b", 1_000L), Map.entry("a", 500L), Map.entry("new", 250L));
        assertThat(after.switchesPer1000Since(before, 100))
                .as("groups under 10 per 1,000 left out")
                .containsExactly(Map.entry("a", 10_000L), Map.entry("b", 100L), Map.entry("new", 50L));
        assertThat(after.allSwitchesPer1000Since(before, 100)).isEqualTo(10_155.0);
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void a_named_thread_of_this_jvm_is_found_under_its_group() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread probe = new Thread(
                () -> {
                    started.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "cpu-probe-7"); // the JVM gives the OS thread the same name (up to 15 characters)
        probe.start();
        try {
            started.await();
            ThreadCpu now = ThreadCpu.of(ProcessHandle.current().pid());
            assertThat(now.tasks().values()).extracting(ThreadCpu.Task::group).contains("cpu-probe");
        } finally {
            release.countDown();
            probe.join();
        }
    }
}
