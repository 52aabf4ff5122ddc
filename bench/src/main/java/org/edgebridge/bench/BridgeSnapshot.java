package org.edgebridge.bench;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a bridge process has spent so far: its CPU time, by thread too, and its counts of the path's work. Two of them
 * around a measured window give the bridge's cost per final receipt, as B3 and B7 report it.
 */
record BridgeSnapshot(double cpuSeconds, ThreadCpu threads, PathCounters counters) {
    /**
     * Reads /metrics first and /proc last, so that a "before" snapshot's scrape falls outside the window it opens. Call
     * {@link #warm} once first: a JVM's first scrape is far dearer than the next ones.
     */
    static BridgeSnapshot of(BridgeChild bridge) throws IOException, InterruptedException {
        PathCounters counters = PathCounters.of(bridge);
        ThreadCpu threads = ThreadCpu.of(bridge.pid());
        return new BridgeSnapshot(bridge.cpuSeconds(), threads, counters);
    }

    /** A first scrape of the bridge's /metrics, outside any measured window. */
    static void warm(BridgeChild bridge) throws IOException, InterruptedException {
        bridge.metrics();
    }

    /** Puts {@code PREFIX_bridge_cpu_us_per_final} and the rest, for the window since {@code before}. */
    void putSince(BridgeSnapshot before, long finals, String prefix, Map<String, Object> results) {
        if (finals == 0) {
            return;
        }
        results.put(prefix + "_bridge_cpu_us_per_final", Math.round((cpuSeconds - before.cpuSeconds) * 1e6 / finals));
        results.put(prefix + "_cpu_us_per_final_by_thread", threads.microsPerUnitSince(before.threads, finals));
        Map<String, Double> per1000 = new LinkedHashMap<>(counters.per1000FinalsSince(before.counters, finals));
        per1000.put("context_switches", threads.allSwitchesPer1000Since(before.threads, finals));
        results.put(prefix + "_per_1000_finals", per1000);
        results.put(
                prefix + "_context_switches_per_1000_finals_by_thread",
                threads.switchesPer1000Since(before.threads, finals));
    }
}
