package org.edgebridge.bench;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

/** Entry point for the test suite's quick run. */
public final class BenchRunner {
    private BenchRunner() {}

    public static Map<String, Object> quick(Path work, Set<String> only) throws Exception {
        return new Bench(true, work).run(only);
    }
}
