package org.edgebridge.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench --quick} in the suite, so that the harness cannot rot: it completes, every figure is there, and what
 * arrived is what was sent (each command's receipts came, central applied each once). Never how fast.
 */
class BenchQuickIT {
    @TempDir
    Path dir;

    @Test
    void the_quick_benchmark_completes_with_every_figure_present_and_every_command_accounted_for() throws Exception {
        Map<String, Object> r = new Bench(true, dir).run(Set.of());
        for (String key : new String[] {
            "b0_msgs_per_s",
            "b1_msgs_per_s",
            "b2_msgs_per_s",
            "ratio_b1_b0",
            "ratio_b2_b0",
            "b3_p50_stored_ms",
            "b3_p99_stored_ms",
            "b3_p50_final_ms",
            "b3_p99_final_ms",
            "b4_heap_mib",
            "b4_rss_mib",
            "b4_reconnect_s",
            "b5_ready_s",
            "b5_drain_events_per_s",
            "b5_held_drain_events_per_s",
            "b6_wrong_username_connack_ms",
            "b6_wrong_password_connack_ms",
            "b7_raw_msgs_per_s",
            "b7_raw_cpu_us_per_msg",
            "b7_finals_per_s",
            "ratio_b7",
            "b7_p50_final_ms",
            "b7_p99_final_ms",
            "b3_bridge_cpu_us_per_final",
            "b7_bridge_cpu_us_per_final"
        }) {
            assertThat(r.get(key)).as(key).isInstanceOf(Number.class);
            assertThat(((Number) r.get(key)).doubleValue()).as(key).isPositive();
        }
        assertThat(r.get("b1_receipts"))
                .as("a stored receipt for every command sent")
                .isEqualTo(4_000L);
        assertThat(r.get("b2_receipts"))
                .as("a final receipt for every command sent (central applied each, checked in run)")
                .isEqualTo(4_000L);

        assertThat(r.get("b3_sent")).isEqualTo(1_500);
        assertThat(r.get("b3_stored_receipts"))
                .as("a stored receipt for every B3 command")
                .isEqualTo(1_500L);
        assertThat(r.get("b3_final_receipts"))
                .as("a final receipt for every B3 command")
                .isEqualTo(1_500L);
        assertThat(r.get("b3_warmup_sent")).isEqualTo(500);
        assertThat(r.get("b3_warmup_finals"))
                .as("a final receipt for every warm-up command")
                .isEqualTo(500L);
        assertThat(r.get("b3_central_applied"))
                .as("central (its own process) applied each B3 command, warm-up and measured")
                .isEqualTo(2_000L);
        assertThat(r.get("b3_central_duplicates")).isEqualTo(0L);

        assertThat(r.get("b4_sessions")).isEqualTo(200);
        assertThat(r.get("b4_sessions_present_after_restart"))
                .as("every session back after the restart")
                .isEqualTo(200);
        assertThat(r.get("b5_rows")).isEqualTo(50_000);
        assertThat(r.get("b5_limit_events_per_s")).isEqualTo(500);
        assertThat(r.get("b5_held_limit_events_per_s")).isEqualTo(200);

        assertThat(r.get("b7_retry_laters"))
                .as("512 in flight never fill the intake queue")
                .isEqualTo(0L);
        assertThat(r.get("b7_finals")).as("a final for every B7 command").isEqualTo(2_000L);
        assertThat(r.get("b7_central_applied"))
                .as("central applied each B7 command, warm-up rounds and measured")
                .isEqualTo((CapacityBench.WARMUP_ROUNDS + 1) * 2_000L);
        assertThat(r.get("b3_bridge")).asString().startsWith("own process");
        for (String figure : new String[] {"b3", "b7"}) {
            // the bridge's own process: its CPU by thread, its counts of the path's work and its context switches
            assertThat(((Map<?, ?>) r.get(figure + "_cpu_us_per_final_by_thread")).containsKey("outbox-writer"))
                    .as(figure)
                    .isTrue();
            assertThat(((Map<?, ?>) r.get(figure + "_context_switches_per_1000_finals_by_thread"))
                            .containsKey("outbox-writer"))
                    .as(figure)
                    .isTrue();
            Map<?, ?> per1000 = (Map<?, ?>) r.get(figure + "_per_1000_finals");
            for (String count :
                    new String[] {"writer_transactions", "writer_requests", "central_requests", "context_switches"}) {
                assertThat(((Number) per1000.get(count)).doubleValue())
                        .as(figure + " " + count)
                        .isPositive();
            }
        }
        assertThat(r.get("durability")).isEqualTo("sqlite WAL synchronous=FULL");
    }
}
