package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.edgebridge.central.Faults;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * The status page in a real headless Chromium (Debian's chromium and chromium-driver, installed by .ci/run):
 * it says it is loading until its first data, renders the counts, updates when a command arrives without
 * reloading, lists rejected commands, shows an alarm and central's URL when central is down, and says so
 * when the status cannot be read. Screenshots in three states (loading, healthy, central down with a
 * backlog), and one without a bridge, go to target/screenshots; the header's colour is read from each.
 */
class StatusPageIT extends PageTest {
    WebDriver browser;

    @BeforeEach
    void start() {
        site = new TestSite(dir.resolve("data"));
        chromium = Browser.start(dir);
        browser = chromium.driver();
    }

    @Test
    void the_page_shows_loading_then_counts_updates_without_reloading_and_raises_an_alarm_when_central_is_down()
            throws Exception {
        // loading: central's status requests are held by the browser itself (DevTools Fetch), so no data arrives
        ChromeDriver chrome = (ChromeDriver) browser;
        chrome.executeCdpCommand("Fetch.enable", Map.of("patterns", List.of(Map.of("urlPattern", "*/api/*"))));
        browser.get(site.adminUrl("/"));
        assertThat(browser.findElement(By.id("headline")).getText())
                .contains("loading")
                .doesNotContain("healthy");
        assertThat(browser.findElement(By.id("banner")).getAttribute("class")).isEqualTo("loading");
        assertThat(browser.findElement(By.id("alarms")).getText()).isEqualTo("loading…");
        assertThat(headerColour(screenshot("status-loading.png")))
                .as("grey header while loading")
                .isEqualTo(0x5f6b7a);
        chrome.executeCdpCommand("Fetch.disable", Map.of());

        await().ignoreException(org.openqa.selenium.StaleElementReferenceException.class)
                .atMost(Duration.ofSeconds(20))
                .until(() -> count("accepted").equals("0"));
        ((JavascriptExecutor) browser).executeScript("window.sameDocument = 'yes'");
        assertThat(browser.findElement(By.id("headline")).getText()).contains("healthy");

        try (DeviceSimulator device = site.device("dev-page")) {
            device.connectAndSubscribe();
            device.publish("workorder/arrive", DeviceSimulator.command("PAGE-1", "\"workOrderId\":\"WO-1\""));
            device.awaitFinal("PAGE-1");
            device.publish("workorder/arrive", "not json");
            site.central.faults(Faults.of("reject", 1));
            device.publish("workorder/arrive", DeviceSimulator.command("PAGE-R", ""));
            assertThat(device.awaitFinal("PAGE-R").path("status").asText()).isEqualTo("rejected");
            await().ignoreException(org.openqa.selenium.StaleElementReferenceException.class)
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> count("accepted").equals("1")
                            && browser.findElements(By.cssSelector("tr[data-command='PAGE-1']"))
                                            .size()
                                    == 1
                            && browser.findElements(By.cssSelector("tr[data-rejected='PAGE-R']"))
                                            .size()
                                    == 1
                            && browser.findElement(By.id("rejected-bridge"))
                                    .getText()
                                    .equals("invalid_json 1"));
            assertThat(((JavascriptExecutor) browser).executeScript("return window.sameDocument"))
                    .as("not reloaded")
                    .isEqualTo("yes");
            String url = "http://127.0.0.1:" + site.centralPort + "/ingest";
            // the page redraws every poll: a redraw between finding an element and reading it makes it stale, and the
            // reads start over
            await().ignoreException(org.openqa.selenium.StaleElementReferenceException.class)
                    .atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> {
                        WebElement none = browser.findElement(By.cssSelector("#alarms li.none"));
                        assertThat(none.getText()).isEqualTo("none");
                        assertThat(none.getCssValue("color"))
                                .as("'none' is not drawn as an alarm")
                                .isEqualTo("rgba(26, 127, 55, 1)");
                        assertThat(browser.findElement(By.cssSelector("tr[data-rejected='PAGE-R']"))
                                        .getText())
                                .contains("sim_rejected");
                        List<WebElement> listeners = browser.findElements(By.cssSelector("#broker .url"));
                        assertThat(listeners)
                                .isNotEmpty()
                                .allSatisfy(l -> assertThat(l.getText()).startsWith("mqtt"));
                        assertThat(browser.findElements(By.cssSelector("#site dd")))
                                .extracting(WebElement::getText)
                                .as(
                                        "the site: edge.id, behind a load balancer, where the tokens come from (never the token), ready for devices")
                                .containsExactly("edge-01", "no", "none", "inline", "yes");
                        assertThat(browser.findElement(By.id("updated")).getText())
                                .matches("updated \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d");
                        assertThat(browser.findElement(By.cssSelector("tr[data-command='PAGE-1']"))
                                        .getText())
                                .containsPattern("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d");
                        assertThat(browser.findElement(By.id("central")).getText())
                                .contains(url);
                        assertThat(browser.findElements(By.cssSelector("#central .url span")))
                                .extracting(WebElement::getText)
                                .containsExactly("http://127.0.0.1:" + site.centralPort, "/ingest");
                        assertThat(browser.findElements(By.cssSelector("#central .url span, #broker .url span")))
                                .allSatisfy(part -> assertThat(part.getCssValue("white-space"))
                                        .as("no break inside a URL's origin or path")
                                        .isEqualTo("nowrap"));
                    });
            assertThat(headerColour(screenshot("status-healthy.png")))
                    .as("green header when healthy")
                    .isEqualTo(0x1a7f37);

            site.central.close();
            device.publish("workorder/arrive", DeviceSimulator.command("PAGE-2", "\"workOrderId\":\"WO-2\""));
            device.publish("workorder/arrive", DeviceSimulator.command("PAGE-3", "\"workOrderId\":\"WO-3\""));
            await().ignoreException(org.openqa.selenium.StaleElementReferenceException.class)
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> browser.findElements(By.cssSelector("#alarms li[data-code='central_unreachable']"))
                                    .size()
                            == 1);
            await().ignoreException(org.openqa.selenium.StaleElementReferenceException.class)
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> count("pending").equals("2"));
            assertThat(browser.findElement(By.id("banner")).getAttribute("class"))
                    .isEqualTo("bad");
            assertThat(browser.findElement(By.id("central")).getText())
                    .contains("refused")
                    .contains(url);
            assertThat(((JavascriptExecutor) browser).executeScript("return window.sameDocument"))
                    .isEqualTo("yes");
            assertThat(headerColour(screenshot("status-central-down.png")))
                    .as("red header with an alarm")
                    .isEqualTo(0xc62828);
        }

        // the bridge goes away: the page says that its status cannot be read, instead of showing the last one as
        // current
        site.close();
        site = null;
        await().ignoreException(org.openqa.selenium.StaleElementReferenceException.class)
                .atMost(Duration.ofSeconds(20))
                .until(() -> browser.findElements(By.cssSelector("#alarms li[data-code='status_unavailable']"))
                                .size()
                        == 1);
        assertThat(browser.findElement(By.id("headline")).getText()).contains("no status");
        screenshot("status-unavailable.png");
    }

    /** The colour of the header in a screenshot, as 0xRRGGBB. */
    private static int headerColour(Path png) throws Exception {
        BufferedImage image = ImageIO.read(png.toFile());
        return image.getRGB(5, 5) & 0xffffff;
    }

    private String count(String state) {
        return text("#count-" + state + " b");
    }

    private Path screenshot(String name) throws Exception {
        return chromium.screenshot(name);
    }
}
