package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Prometheus alert rules shipped in {@code broker-config/prometheus-rules.yml}: Prometheus' own {@code promtool}
 * (Debian's {@code prometheus} package, installed by {@code .ci/run}) checks them and runs their unit tests, and every
 * metric they name is on a running bridge's {@code /metrics}, so that renaming a metric breaks this test and not a
 * site's alerting.
 */
class AlertRulesIT {
    private static final Path PROMTOOL = Path.of("/usr/bin/promtool");
    private static final Path RULES = Path.of("..", "broker-config", "prometheus-rules.yml");
    private static final Pattern METRIC = Pattern.compile("\\b((?:edgebridge|resilience4j)_[a-z_]+)");
    /** Lint findings of Micrometer's own JVM binders, not of the bridge's metrics. */
    private static final Set<String> FOREIGN_LINT = Set.of("process_cpu_time_ns_total", "system_cpu_count");

    @TempDir
    Path dir;

    @BeforeEach
    void promtoolIsThere() {
        if (System.getenv("CI") == null) {
            Assumptions.assumeTrue(
                    Files.isExecutable(PROMTOOL),
                    "Debian's prometheus package (promtool) is not installed " + "(.ci/run installs it)");
        }
        assertThat(PROMTOOL).as("promtool must be installed in CI").isExecutable();
    }

    @Test
    void the_alert_rules_pass_promtool_check_and_their_unit_tests() throws Exception {
        Files.copy(RULES, dir.resolve("prometheus-rules.yml"));
        try (var test = AlertRulesIT.class.getResourceAsStream("/prometheus/rules-test.yml")) {
            Files.copy(test, dir.resolve("rules-test.yml"));
        }
        assertThat(promtool(null, "check", "rules", "prometheus-rules.yml")).contains("SUCCESS: 10 rules found");
        assertThat(promtool(null, "test", "rules", "rules-test.yml")).contains("SUCCESS");
    }

    @Test
    void every_metric_the_rules_name_is_on_a_running_bridge_and_its_metrics_pass_promtool_lint() throws Exception {
        Set<String> named = new TreeSet<>();
        Matcher m = METRIC.matcher(Files.readString(RULES));
        while (m.find()) {
            named.add(m.group(1));
        }
        assertThat(named).contains("edgebridge_alarm_active", "edgebridge_outbox_max_pending");
        try (TestSite site = new TestSite(dir.resolve("data"))) {
            // an alarm, so that edgebridge_alarm_active has a series
            assertThat(site.post("/api/forwarder/pause", "test-token").statusCode())
                    .isEqualTo(200);
            String metrics = await().atMost(Duration.ofSeconds(20))
                    .until(
                            () -> site.get("/metrics").body(),
                            body -> body.contains("edgebridge_alarm_active{code=\"forwarder_paused\"} 1.0"));
            Set<String> exposed = metrics.lines()
                    .filter(l -> !l.startsWith("#") && !l.isBlank())
                    .map(l -> l.split("[{ ]", 2)[0])
                    .collect(Collectors.toCollection(TreeSet::new));
            assertThat(exposed).as("metrics on /metrics").containsAll(named);

            String lint = promtool(metrics, "check", "metrics");
            List<String> ours = new ArrayList<>();
            for (String line : lint.lines().toList()) {
                if (!line.isBlank() && FOREIGN_LINT.stream().noneMatch(line::startsWith)) {
                    ours.add(line);
                }
            }
            assertThat(ours)
                    .as("promtool check metrics on the bridge's own metrics")
                    .isEmpty();

            assertThat(site.post("/api/forwarder/resume", "test-token").statusCode())
                    .isEqualTo(200);
            await().atMost(Duration.ofSeconds(20))
                    .until(
                            () -> site.get("/metrics").body(),
                            body -> !body.contains("edgebridge_alarm_active{code=\"forwarder_paused\"}"));
        }
    }

    /** Runs promtool in {@link #dir}; @return its output; fails unless it exits 0 (lint findings: exit 3, returned) */
    private String promtool(String stdin, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(PROMTOOL.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
        if (stdin != null) {
            try (var in = p.getOutputStream()) {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
        } else {
            p.getOutputStream().close();
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        if (stdin == null || p.exitValue() != 3) {
            assertThat(p.exitValue())
                    .as("promtool " + String.join(" ", args) + ":\n" + out)
                    .isZero();
        }
        return out;
    }
}
