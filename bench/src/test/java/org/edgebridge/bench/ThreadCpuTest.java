package org.edgebridge.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class ThreadCpuTest {
    @Test
    void threads_of_one_pool_are_one_group() {
        assertThat(ThreadCpu.group("nioEventLoopGroup-3-2")).isEqualTo("nioEventLoopGroup");
        assertThat(ThreadCpu.group("pool-3-thread-12")).isEqualTo("pool-thread");
        assertThat(ThreadCpu.group("outbox-writer")).isEqualTo("outbox-writer");
        assertThat(ThreadCpu.group("42")).as("a name of numbers only stays itself").isEqualTo("42");
    }

    @Test
    void a_stat_line_gives_user_plus_system_seconds_even_with_spaces_and_parentheses_in_the_name() {
        // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime …
        String stat = "123 (C2 Compiler (x)) S 1 1 1 0 -1 4194368 10 0 0 0 250 50 0 0 20 0 1 0 100 0 0";
        assertThat(ThreadCpu.cpuSeconds(stat)).isEqualTo(3.0);
    }

    @Test
    void the_cost_per_unit_is_the_difference_by_group_largest_first() {
        ThreadCpu before = new ThreadCpu(Map.of("a", 1.0, "b", 2.0), Map.of("a", 100.0, "b", 10.0));
        ThreadCpu after = new ThreadCpu(Map.of("a", 1.5, "b", 3.0, "new", 0.25), Map.of("a", 1_100.0, "b", 20.0, "new", 5.0));
        assertThat(after.microsPerUnitSince(before, 1_000)).containsExactly(Map.entry("b", 1_000L), Map.entry("a", 500L),
                Map.entry("new", 250L));
        assertThat(after.switchesPer1000Since(before, 100)).as("groups under 10 per 1,000 left out")
                .containsExactly(Map.entry("a", 10_000L), Map.entry("b", 100L), Map.entry("new", 50L));
        assertThat(after.allSwitchesPer1000Since(before, 100)).isEqualTo(10_150.0);
    }

    @Test
    void a_named_thread_of_this_jvm_is_found_under_its_group() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread probe = new Thread(() -> {
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "cpu-probe-7"); // the JVM gives the OS thread the same name (up to 15 characters)
        probe.start();
        try {
            started.await();
            ThreadCpu now = ThreadCpu.of(ProcessHandle.current().pid());
            assertThat(now.secondsByGroup()).containsKey("cpu-probe");
            assertThat(now.switchesByGroup()).containsKey("cpu-probe");
        } finally {
            release.countDown();
            probe.join();
        }
    }
}
