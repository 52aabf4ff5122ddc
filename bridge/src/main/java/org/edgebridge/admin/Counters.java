package org.edgebridge.admin;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.ToDoubleFunction;

/** A counter read from a figure of a part at each scrape: the shape most of the bridge's meters have. */
final class Counters {
    private Counters() {}

    static <T> void counter(MeterRegistry registry, String name, T source, ToDoubleFunction<T> f, String description) {
        FunctionCounter.builder(name, source, f).description(description).register(registry);
    }
}
