package org.edgebridge.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;

/**
 * A process's threads, each with its CPU time (user + system, Linux's {@code /proc/PID/task/TID/stat}) and its context
 * switches ({@code /proc/PID/task/TID/status}: voluntary, a thread that blocks to wait for another, and involuntary, a
 * thread preempted), for the profile of issue 25: where a bridge process's CPU goes over a measured window. Two
 * snapshots give each thread's share of the window, summed by thread group: the name without its numbers
 * ({@code nioEventLoopGroup-3-2} and {@code -3-1} are one group). A thread that ends inside the window loses its share;
 * the bridge's path runs on long-lived threads.
 */
record ThreadCpu(Map<Long, Task> tasks) {
    /** Linux's USER_HZ, the unit of /proc's CPU times (100 on every architecture the bridge ships for). */
    private static final double TICKS_PER_SECOND = 100;

    /** One thread: its group, CPU seconds and context switches so far. */
    record Task(String group, double cpuSeconds, double switches) {}

    static ThreadCpu of(long pid) {
        Map<Long, Task> tasks = new HashMap<>();
        try (Stream<Path> dirs = Files.list(Path.of("/proc", String.valueOf(pid), "task"))) {
            dirs.forEach(dir -> {
                try {
                    // ISO-8859-1: a name that Linux cut inside a UTF-8 character still reads
                    String stat = Files.readString(dir.resolve("stat"), StandardCharsets.ISO_8859_1);
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    double switches = 0;
                    for (String line : Files.readAllLines(dir.resolve("status"), StandardCharsets.ISO_8859_1)) {
                        if (line.startsWith("voluntary_ctxt_switches:")
                                || line.startsWith("nonvoluntary_ctxt_switches:")) {
                            switches += Double.parseDouble(
                                    line.substring(line.indexOf(':') + 1).trim());
                        }
                    }
                    tasks.put(
                            Long.parseLong(dir.getFileName().toString()),
                            new Task(group(name), cpuSeconds(stat), switches));
                } catch (IOException ended) {
                    // the thread ended between the listing and the reads (ENOENT or ESRCH): it has no share to give
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new ThreadCpu(Map.copyOf(tasks));
    }

    /** User + system CPU seconds of a {@code /proc/PID/stat} or {@code /proc/PID/task/TID/stat} line. */
    static double cpuSeconds(String stat) {
        // the name is in parentheses and may hold spaces: the fields after it start with the state; utime is the 14th
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS_PER_SECOND;
    }

    /** A thread's name without its numbers: {@code pool-3-thread-12} → {@code pool-thread}. */
    static String group(String name) {
        String g = name.replaceAll("[-_#]?\\d+", "");
        return g.isEmpty() ? name : g;
    }

    /** µs of CPU per {@code units} since {@code before}, by group, largest first; groups under 1 µs left out. */
    Map<String, Long> microsPerUnitSince(ThreadCpu before, long units) {
        return perUnit(sinceByGroup(before, Task::cpuSeconds), 1e6 / units, 1);
    }

    /** Context switches per 1,000 {@code units} since {@code before}, by group, largest first; under 10 left out. */
    Map<String, Long> switchesPer1000Since(ThreadCpu before, long units) {
        return perUnit(sinceByGroup(before, Task::switches), 1000.0 / units, 10);
    }

    /** All threads' context switches per 1,000 {@code units} since {@code before}. */
    double allSwitchesPer1000Since(ThreadCpu before, long units) {
        return per1000(
                sinceByGroup(before, Task::switches).values().stream()
                        .mapToDouble(Double::doubleValue)
                        .sum(),
                units);
    }

    /** {@code count} per 1,000 {@code units}, to one decimal. */
    static double per1000(double count, long units) {
        return Math.round(count * 1000.0 / units * 10) / 10.0;
    }

    /** Each live thread's growth since {@code before} (all of it for a thread that started since), summed by group. */
    private Map<String, Double> sinceByGroup(ThreadCpu before, ToDoubleFunction<Task> figure) {
        Map<String, Double> groups = new HashMap<>();
        tasks.forEach((tid, now) -> {
            Task then = before.tasks.get(tid);
            double grown = figure.applyAsDouble(now) - (then == null ? 0 : figure.applyAsDouble(then));
            groups.merge(now.group(), grown, Double::sum);
        });
        return groups;
    }

    private static Map<String, Long> perUnit(Map<String, Double> grown, double scale, long least) {
        Map<String, Long> per = new LinkedHashMap<>();
        grown.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), Math.round(e.getValue() * scale)))
                .filter(e -> e.getValue() >= least)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .forEach(e -> per.put(e.getKey(), e.getValue()));
        return per;
    }
}
