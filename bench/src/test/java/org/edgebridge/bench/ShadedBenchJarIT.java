package org.edgebridge.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * The bench as docs/BENCHMARKS.md runs it, {@code java -jar bench/target/edge-bridge-bench.jar}, has every class of
 * the bridge it uses. The suite runs the bench on Maven's class path, which has the bridge's test jar whole; the
 * shaded jar takes only the tools it lists, and B0, B5 and B7 once failed there with {@code NoClassDefFoundError}
 * (RawBroker, BulkLoader) while every test was green. {@code jdeps --missing-deps} reads the jar's classes.
 */
class ShadedBenchJarIT {
    @Test
    void the_shaded_bench_jar_misses_no_class_of_the_bridge() {
        Path jar = Path.of("target/edge-bridge-bench.jar");
        assertThat(jar).as("built by the package phase").exists();
        StringWriter out = new StringWriter();
        int rc = ToolProvider.findFirst("jdeps")
                .orElseThrow()
                .run(
                        new PrintWriter(out),
                        new PrintWriter(out),
                        "--missing-deps",
                        "--multi-release",
                        "17",
                        "-q",
                        jar.toString());
        assertThat(rc).as(out.toString()).isZero();
        assertThat(out.toString().lines().filter(line -> line.contains("-> org.edgebridge.")))
                .as("classes of the bridge the bench uses but its jar lacks")
                .isEmpty();
    }
}
