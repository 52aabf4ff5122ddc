package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.WebDriver;

/**
 * The status page's last hour (backlog, commands in and finals out per second, the breaker's openings) in a real
 * headless Chromium, with the shipped sample interval (10 s): the chart is drawn within 5 s of opening the page, gets
 * a point per sample, and shows a marker once central is down and the breaker opens. Screenshots:
 * target/screenshots/activity-healthy.png, activity-breaker.png.
 */
class ActivityChartIT extends PageTest {
    private static final Duration READABLE = Duration.ofSeconds(5);
    private static final Duration SAMPLES = Duration.ofSeconds(45);

    @Test
    void the_last_hour_is_drawn_with_a_point_per_sample_and_marks_where_the_breaker_opened_when_central_is_down()
            throws Exception {
        site = new TestSite(dir.resolve("data"));
        chromium = Browser.start(dir);
        WebDriver page = chromium.driver();
        try (DeviceSimulator device = site.device("dev-chart")) {
            device.connectAndSubscribe();
            for (int i = 1; i <= 5; i++) {
                device.publish("t", DeviceSimulator.command("CHART-" + i, ""));
            }
            device.awaitFinal("CHART-5");

            page.get(site.adminUrl("/"));
            await().atMost(READABLE)
                    .until(() -> headline().contains("healthy")
                            && points("backlog") >= 1
                            && points("in") >= 0
                            && legend().startsWith("now:"));
            await().atMost(SAMPLES).until(() -> points("backlog") >= 2 && points("finals") >= 1);
            shot("activity-healthy.png");
            assertThat(markers()).isZero();

            site.central.close();
            for (int i = 1; i <= 3; i++) {
                device.publish("t", DeviceSimulator.command("DOWN-" + i, ""));
                device.awaitReceipt("DOWN-" + i, "stored");
            }
            await().atMost(SAMPLES)
                    .until(() ->
                            markers() >= 2 && legend().contains("breaker opened") && legend().contains("backlog 3"));
            shot("activity-breaker.png");

            page.navigate().refresh();
            await().atMost(READABLE)
                    .until(() -> markers() >= 2
                            && points("backlog") >= 3
                            && !headline().contains("loading"));
        }
        JsonNode activity = site.getJson("/api/activity");
        assertThat(activity.path("intervalSeconds").asInt()).isEqualTo(10);
        assertThat(activity.path("maxSamples").asInt()).isEqualTo(360);
        assertThat(activity.path("breakerOpened")).isNotEmpty();
        assertThat(activity.path("samples")
                        .get(activity.path("samples").size() - 1)
                        .path("breakerOpen")
                        .asBoolean())
                .isTrue();
    }

    /** Points of one series' line. */
    private int points(String series) {
        Object n = chromium.script(
                "const e = document.querySelector(\"polyline[data-series='\" + arguments[0] + \"']\");"
                        + " return e ? Number(e.dataset.points) : -1;",
                series);
        return ((Number) n).intValue();
    }

    /** Breaker markers, in both charts. */
    private int markers() {
        return ((Number) chromium.script("return document.querySelectorAll('#activity line[data-breaker]').length"))
                .intValue();
    }

    private String legend() {
        return text("#activity-legend");
    }

    private String headline() {
        return text("#headline");
    }

    private void shot(String name) throws Exception {
        chromium.script("document.getElementById('activity-section').scrollIntoView()");
        chromium.screenshot(name);
    }
}
