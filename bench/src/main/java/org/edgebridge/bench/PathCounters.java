package org.edgebridge.bench;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The bridge's own counts of the work on a command's path, read from its {@code /metrics}: how many outbox
 * transactions (each an fsync), outbox write requests and requests to central it took per final receipt over a
 * measured window. Fixed costs per transaction and per request, not per command, are what a bridge spends at a low
 * rate (issue 25), so these say why its CPU per final differs between B3 and B7.
 */
record PathCounters(Map<String, Double> totals) {
    /** Prometheus names of the counters, by the short name the results use. */
    private static final Map<String, String> COUNTERS = orderedOf(List.of(
            "writer_transactions", "edgebridge_outbox_writer_transactions_total",
            "writer_requests", "edgebridge_outbox_writer_requests_total",
            "central_requests", "edgebridge_forwarder_requests_total"));

    static PathCounters of(BridgeChild bridge) throws IOException, InterruptedException {
        Map<String, Double> totals = new LinkedHashMap<>();
        String metrics = bridge.metrics();
        // a counter's line is its name, then a space (no tags) or its tags
        COUNTERS.forEach(
                (shortName, name) -> totals.put(shortName, sum(metrics, name + " ") + sum(metrics, name + "{")));
        return new PathCounters(totals);
    }

    /** Each count since {@code before}, per 1,000 finals. */
    Map<String, Double> per1000FinalsSince(PathCounters before, long finals) {
        Map<String, Double> per = new LinkedHashMap<>();
        totals.forEach((k, v) -> per.put(k, ThreadCpu.per1000(v - before.totals.get(k), finals)));
        return per;
    }

    /** The sum of the values of the lines that start with {@code linePrefix}; 0 if there is none. */
    static double sum(String metrics, String linePrefix) {
        double sum = 0;
        for (String line : metrics.split("\n")) {
            if (line.startsWith(linePrefix)) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }

    private static Map<String, String> orderedOf(List<String> pairs) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < pairs.size(); i += 2) {
            m.put(pairs.get(i), pairs.get(i + 1));
        }
        return m;
    }
}
