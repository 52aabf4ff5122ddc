package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.edgebridge.bench.BenchRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bench --quick} in the suite, so that the harness cannot rot: it completes and its figures agree. Never how fast. */
class BenchQuickIT {
    @TempDir
    Path dir;

    @Test
    void the_quick_benchmark_completes_with_every_figure_present_and_consistent() throws Exception {
        Map<String, Object> r = BenchRunner.quick(dir, Set.of());
        for (String key : new String[] {"b0_msgs_per_s", "b1_msgs_per_s", "b2_msgs_per_s", "ratio_b1_b0", "ratio_b2_b0",
            "b3_p50_final_ms", "b3_p99_final_ms", "b4_sessions", "b4_heap_mib", "b4_reconnect_s", "b5_rows", "b5_ready_s",
            "b5_drain_events_per_s", "b5_limit_events_per_s", "durability"}) {
            assertThat(r.get(key)).as(key).isNotNull();
        }
        assertThat(r.get("b1_receipts")).as("a stored receipt for every command sent").isEqualTo(4_000L);
        assertThat(r.get("b2_receipts")).as("a final receipt for every command sent (central applied each, checked in run)")
                .isEqualTo(4_000L);
        assertThat(r.get("b4_sessions_present_after_restart")).as("every session back after the restart").isEqualTo(200);
        assertThat((Double) r.get("b3_p99_final_ms")).isGreaterThanOrEqualTo((Double) r.get("b3_p50_final_ms"));
        assertThat(r.get("durability")).isEqualTo("sqlite WAL synchronous=FULL");
    }
}
