package org.edgebridge.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A process's CPU time by thread, from Linux's {@code /proc/PID/task/TID/stat} (user + system), grouped by thread name
 * without its numbers ({@code nioEventLoopGroup-3-2} and {@code -3-1} are one group): where a bridge process's CPU goes
 * over a measured window, for the profile of issue 25; and its threads' context switches (voluntary: a thread that
 * waits for another, each a wake-up; {@code /proc/PID/task/TID/status}). A thread that ends inside the window loses its share; the
 * bridge's path runs on long-lived threads.
 */
record ThreadCpu(Map<String, Double> secondsByGroup, Map<String, Double> switchesByGroup) {
    /** Linux's USER_HZ, the unit of /proc's CPU times (100 on every architecture the bridge ships for). */
    private static final double TICKS_PER_SECOND = 100;

    static ThreadCpu of(long pid) {
        Map<String, Double> groups = new HashMap<>();
        Map<String, Double> switches = new HashMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc", String.valueOf(pid), "task"))) {
            tasks.forEach(task -> {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    groups.merge(group(name), cpuSeconds(stat), Double::sum);
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:") || line.startsWith("nonvoluntary_ctxt_switches:")) {
                            switches.merge(group(name), Double.parseDouble(line.substring(line.indexOf(':') + 1).trim()),
                                    Double::sum);
                        }
                    }
                } catch (NoSuchFileException ended) {
                    // the thread ended between the listing and the read
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new ThreadCpu(Map.copyOf(groups), Map.copyOf(switches));
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
        return perUnit(secondsByGroup, before.secondsByGroup, 1e6 / units, 1);
    }

    /** Context switches per 1,000 {@code units} since {@code before}, by group, largest first; under 10 left out. */
    Map<String, Long> switchesPer1000Since(ThreadCpu before, long units) {
        return perUnit(switchesByGroup, before.switchesByGroup, 1000.0 / units, 10);
    }

    /** All groups' switches per 1,000 {@code units} since {@code before}. */
    double allSwitchesPer1000Since(ThreadCpu before, long units) {
        double sum = 0;
        for (Map.Entry<String, Double> e : switchesByGroup.entrySet()) {
            sum += e.getValue() - before.switchesByGroup.getOrDefault(e.getKey(), 0.0);
        }
        return Math.round(sum * 1000.0 / units * 10) / 10.0;
    }

    private static Map<String, Long> perUnit(Map<String, Double> now, Map<String, Double> before, double scale, long least) {
        Map<String, Long> per = new LinkedHashMap<>();
        now.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), Math.round((e.getValue() - before.getOrDefault(e.getKey(), 0.0)) * scale)))
                .filter(e -> e.getValue() >= least)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .forEach(e -> per.put(e.getKey(), e.getValue()));
        return per;
    }
}
