package org.edgebridge.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code java -jar bench/target/edge-bridge-bench.jar}: prints the table and writes the JSON of one run. The figures
 * that start a bridge or a central in their own JVM run {@code bridge/target/edge-bridge.jar} (or {@code -Dbridge.jar}).
 */
@Command(
        name = "edge-bridge-bench",
        mixinStandardHelpOptions = true,
        description = "Measure the bare broker (B0) against the bridge "
                + "(B1 intake, B2 end to end, B3 latency, B4 sessions, B5 backlog, B6 login flood, B7 closed-loop capacity) on this machine, "
                + "and print the figures.")
public final class BenchCommand implements Callable<Integer> {
    public static void main(String[] args) {
        System.exit(new picocli.CommandLine(new BenchCommand())
                .setUsageHelpAutoWidth(true)
                .execute(args));
    }

    @Option(names = "--quick", description = "small sizes: under a minute")
    boolean quick;

    @Option(
            names = "--only",
            paramLabel = "B0,B2,...",
            description = "run only these figures, comma-separated: B0 to B7, e.g. --only B0,B2 (default: all)")
    String onlyList = "";

    @Option(names = "--json", paramLabel = "FILE", description = "write the results as one JSON object")
    Path json;

    @Option(names = "--work", paramLabel = "DIR", description = "scratch directory (default: a new temp dir)")
    Path work;

    @Option(
            names = "--b3-rate",
            paramLabel = "N",
            description = "B3's offered commands per second (default: 1000, --quick 500)")
    Integer b3Rate;

    @Option(
            names = "--b3-seconds",
            paramLabel = "S",
            description = "how long B3 offers them, measured (default: 30, --quick 3)")
    Integer b3Seconds;

    @Option(
            names = "--b3-warmup",
            paramLabel = "S",
            description = "how long B3 offers them first, to warm the JVM up; "
                    + "reported as b3_cold_* (default: 90, --quick 1)")
    Integer b3Warmup;

    @Option(
            names = "--b3-devices",
            paramLabel = "N",
            description = "how many devices B3 offers its rate from (default: 20)")
    Integer b3Devices;

    @Option(
            names = "--central-delay-ms",
            paramLabel = "MS",
            description = "B3's central answers this long after it applied "
                    + "a request: a central across a WAN (default: 0)")
    int centralDelayMs;

    @Option(
            names = "--b3-in-process",
            description = "run B3's bridge in the bench's JVM instead of its own process: for the "
                    + "trace (-Dedgebridge.trace=true), which only that JVM can read; no CPU figure")
    boolean b3InProcess;

    @Option(
            names = "--b7-raw-in-process",
            description = "run B7's bare broker in the bench's JVM, as before 2026-12-06, instead of its own process "
                    + "with the service unit's JVM flags (as the bridge runs): only to compare the two")
    boolean b7RawInProcess;

    @Option(
            names = "--set",
            paramLabel = "KEY=VALUE",
            description = "a config key for the bridges of B1, B2, B3, B7 "
                    + "(e.g. forwarder.linger=0ms); repeatable; the defaults otherwise")
    java.util.List<String> sets = new java.util.ArrayList<>();

    private Bench.Sizes sizes() {
        Bench.Sizes s = Bench.Sizes.of(quick);
        LatencyBench.Shape b3 = s.b3();
        return s.withB3(new LatencyBench.Shape(
                b3Rate != null ? b3Rate : b3.rate(),
                b3Warmup != null ? b3Warmup : b3.warmupSeconds(),
                b3Seconds != null ? b3Seconds : b3.seconds(),
                b3Devices != null ? b3Devices : b3.devices(),
                centralDelayMs,
                b3InProcess));
    }

    @Override
    public Integer call() throws Exception {
        Set<String> figures = new LinkedHashSet<>();
        String[] only = onlyList.isBlank() ? new String[0] : onlyList.split(",");
        for (String f : only) {
            String name = f.trim().toUpperCase(Locale.ROOT);
            if (!name.matches("B[0-7]")) {
                System.err.println("--only " + f + ": figures are B0 to B7");
                return 2;
            }
            figures.add(name);
        }
        Path dir = work != null ? Files.createDirectories(work) : Files.createTempDirectory("edge-bridge-bench");
        Map<String, Object> results = new Bench(sizes(), dir, sets, b7RawInProcess).run(figures);
        System.out.println();
        System.out.println("edge bridge benchmark" + (quick ? " (--quick)" : "") + ", "
                + Runtime.getRuntime().availableProcessors() + " cores, durability: " + Bench.DURABILITY);
        if (!sets.isEmpty()) {
            results.put("bridge_config_set", String.join(" ", sets));
        }
        results.forEach((k, v) -> System.out.printf("  %-34s %s%n", k, v == null ? "-" : v));
        if (json != null) {
            Files.writeString(
                    json, new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(results));
            System.out.println("written to " + json.toAbsolutePath());
        }
        System.out.println(
                "(figures run: " + (figures.isEmpty() ? "all" : String.join(",", Arrays.asList(only))) + ")");
        return 0;
    }
}
