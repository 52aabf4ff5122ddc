package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.edgebridge.central.CentralSim;
import org.edgebridge.central.Faults;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * A command's timeline (docs/desk.md, "A command's timeline") end to end: a real device over MQTT, the bridge with its
 * shipped defaults but for the test site's loopback settings, the reference central answering the first request 503
 * and the next one 200 (50 ms late), the admin API, the JSON file for a support ticket and the status page in a real
 * headless Chromium at 1280 and 420 px. Screenshots: target/screenshots/timeline-1280.png, timeline-420.png.
 */
class CommandTimelineIT extends PageTest {
    private static final Duration PAGE = Duration.ofSeconds(20);

    @Test
    void
            a_command_that_central_failed_once_shows_each_attempt_its_final_and_its_receipt_on_the_api_the_file_and_the_page()
                    throws Exception {
        site = new TestSite(dir);
        site.central.faults(Faults.status(503, null, 1));
        site.central.replyDelay(Duration.ofMillis(50));
        try (DeviceSimulator device = site.device("tl-dev")) {
            device.connectAndSubscribe();
            Instant before = Instant.now();
            device.publish("t", DeviceSimulator.command("TL-1", ""));
            assertThat(device.awaitFinal("TL-1").path("status").asText()).isEqualTo("accepted");
            assertThat(site.central.requestLog())
                    .extracting(CentralSim.Request::status)
                    .startsWith(503)
                    .contains(200);

            // the receipt's mark and the device's PUBACK of it are recorded after the final: wait for both
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> whats(site.getJson("/api/outbox/tl-dev/TL-1"))
                            .containsAll(List.of("receipt_published", "receipt_acked")));
            JsonNode one = site.getJson("/api/outbox/tl-dev/TL-1");
            assertThat(one.path("state").asText())
                    .as("the endpoint's fields stay")
                    .isEqualTo("accepted");
            assertThat(one.path("history").isArray()).isTrue();
            JsonNode timeline = one.path("timeline");
            List<String> whats = whats(one);
            assertThat(whats)
                    .startsWith("received", "stored", "attempt")
                    .endsWith("final", "receipt_published", "receipt_acked")
                    .contains("released");
            Instant received = Instant.parse(timeline.get(0).path("at").asText());
            assertThat(received).isBetween(before.minusSeconds(1), Instant.now());
            for (int i = 1; i < timeline.size(); i++) {
                assertThat(Instant.parse(timeline.get(i).path("at").asText()))
                        .as("oldest first")
                        .isAfterOrEqualTo(
                                Instant.parse(timeline.get(i - 1).path("at").asText()));
            }
            JsonNode attempts = entry(timeline, "attempt");
            assertThat(attempts.path("times").asInt())
                    .as("two requests at least: the 503, then the 200")
                    .isGreaterThanOrEqualTo(2);
            JsonNode released = entry(timeline, "released");
            assertThat(released.path("httpStatus").asInt()).isEqualTo(503);
            assertThat(released.path("tookMs").asLong()).isGreaterThanOrEqualTo(0);
            JsonNode fin = entry(timeline, "final");
            assertThat(fin.path("status").asText()).isEqualTo("accepted");
            assertThat(fin.path("httpStatus").asInt()).isEqualTo(200);
            assertThat(fin.path("tookMs").asLong())
                    .as("central answered 50 ms late")
                    .isGreaterThanOrEqualTo(50);
            assertThat(fin.path("requestId").asText())
                    .as("the request that made it final, not the 503's")
                    .isNotEmpty()
                    .isNotEqualTo(released.path("requestId").asText());

            HttpResponse<String> file = site.get("/api/outbox/tl-dev/TL-1/timeline");
            assertThat(file.statusCode()).isEqualTo(200);
            assertThat(file.headers().firstValue("Content-Disposition"))
                    .hasValue("attachment; filename=\"timeline-"
                            + site.getJson("/api/status").path("edgeId").asText() + "-tl-dev-TL-1.json\"");
            JsonNode exported = DeviceSimulator.JSON.readTree(file.body());
            assertThat(exported.path("edgeId").asText())
                    .isEqualTo(site.getJson("/api/status").path("edgeId").asText());
            assertThat(exported.path("timeline")).isEqualTo(timeline);
            assertThat(exported.path("command").path("commandId").asText()).isEqualTo("TL-1");
            assertThat(site.get("/api/outbox/tl-dev/NOPE/timeline").statusCode())
                    .isEqualTo(404);

            chromium = Browser.start(dir);
            WebDriver page = chromium.driver();
            page.get(site.adminUrl("/"));
            String link = "tr[data-command='TL-1'] button[data-timeline='TL-1']";
            await().atMost(PAGE)
                    .until(() -> !page.findElements(By.cssSelector(link)).isEmpty()); // the page's first read
            click(page, link);
            await().ignoreException(StaleElementReferenceException.class)
                    .atMost(PAGE)
                    .until(() -> pageWhats(page).equals(whats));
            assertThat(text("#timeline-entries tr[data-what='final']"))
                    .contains("accepted")
                    .contains("200");
            assertThat(text("#timeline-entries tr[data-what='released']")).contains("503");
            assertThat(text("#timeline-result")).startsWith("TL-1 of tl-dev — accepted");
            WebElement download = page.findElement(By.id("timeline-download"));
            assertThat(download.isDisplayed()).isTrue();
            assertThat(download.getText()).isEqualTo("download JSON");
            assertThat(download.getAttribute("href")).endsWith("/api/outbox/tl-dev/TL-1/timeline");
            Object disposition = chromium.driver()
                    .executeAsyncScript("const done = arguments[arguments.length - 1];"
                            + "fetch(document.getElementById('timeline-download').href)"
                            + ".then(r => done(r.status + ' ' + r.headers.get('Content-Disposition')));");
            assertThat(String.valueOf(disposition)).startsWith("200 attachment; filename=\"timeline-");
            timelineScreenshot("timeline-1280.png");

            page.manage().window().setSize(new Dimension(420, 1400));
            assertThat((Boolean) chromium.script("return document.documentElement.scrollWidth <= window.innerWidth"))
                    .as("nothing scrolls sideways on a phone: the timeline's table scrolls inside its section")
                    .isTrue();
            Number tallest =
                    (Number) chromium.script("return Math.max(...[...document.querySelectorAll('#timeline-entries tr')]"
                            + ".map(r => r.getBoundingClientRect().height))");
            assertThat(tallest.doubleValue())
                    .as("each entry a short block on a phone, not a squeezed table row")
                    .isLessThan(200);
            assertThat((Boolean) chromium.script("const s = document.getElementById('timeline-section');"
                            + " return s.scrollWidth <= s.clientWidth"))
                    .as("and none wider than its section")
                    .isTrue();
            timelineScreenshot("timeline-420.png");
        }
    }

    private static List<String> whats(JsonNode command) {
        List<String> out = new ArrayList<>();
        command.path("timeline").forEach(e -> out.add(e.path("what").asText()));
        return out;
    }

    private static JsonNode entry(JsonNode timeline, String what) {
        for (JsonNode e : timeline) {
            if (e.path("what").asText().equals(what)) {
                return e;
            }
        }
        throw new AssertionError("no " + what + " in " + timeline);
    }

    private List<String> pageWhats(WebDriver page) {
        List<String> out = new ArrayList<>();
        page.findElements(By.cssSelector("#timeline-entries tr")).forEach(tr -> out.add(tr.getAttribute("data-what")));
        return out;
    }

    private void timelineScreenshot(String name) throws Exception {
        chromium.script("document.getElementById('timeline-section').scrollIntoView()");
        chromium.screenshot(name);
    }
}
