package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The status page in a real headless Chromium (Debian's chromium and chromium-driver, installed by .ci/run):
 * it renders the counts, updates when a command arrives without reloading, and shows an alarm when central
 * is down. Screenshots go to target/screenshots.
 */
class StatusPageIT {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

    @TempDir
    Path dir;

    TestSite site;
    WebDriver browser;

    @BeforeEach
    void start() {
        boolean present = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
        if (System.getenv("CI") == null) {
            Assumptions.assumeTrue(present, "Debian's chromium and chromium-driver are not installed (.ci/run installs them)");
        }
        assertThat(present).as("chromium and chromedriver must be installed in CI").isTrue();
        site = new TestSite(dir.resolve("data"));
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--disable-quic", "--window-size=1280,900", "--user-data-dir=" + dir.resolve("chromium-profile"));
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
    }

    @AfterEach
    void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (site != null) {
            site.close();
        }
    }

    @Test
    void the_page_shows_counts_updates_without_reloading_and_raises_an_alarm_when_central_is_down() throws Exception {
        browser.get(site.adminUrl("/"));
        await().atMost(Duration.ofSeconds(20)).until(() -> count("accepted").equals("0"));
        ((JavascriptExecutor) browser).executeScript("window.sameDocument = 'yes'");
        assertThat(browser.findElement(By.id("headline")).getText()).contains("healthy");

        try (TestDevice device = site.device("dev-page")) {
            device.connectAndSubscribe();
            device.publish("workorder/arrive", TestDevice.command("PAGE-1", "\"workOrderId\":\"WO-1\""));
            device.awaitFinal("PAGE-1");
            await().atMost(Duration.ofSeconds(20)).until(() -> count("accepted").equals("1")
                    && browser.findElements(By.cssSelector("tr[data-command='PAGE-1']")).size() == 1);
            assertThat(((JavascriptExecutor) browser).executeScript("return window.sameDocument")).as("not reloaded").isEqualTo("yes");
            screenshot("status-central-up.png");

            site.central.close();
            device.publish("workorder/arrive", TestDevice.command("PAGE-2", "\"workOrderId\":\"WO-2\""));
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    browser.findElements(By.cssSelector("#alarms li[data-code='central_unreachable']")).size() == 1);
            await().atMost(Duration.ofSeconds(20)).until(() -> count("pending").equals("1"));
            assertThat(browser.findElement(By.id("banner")).getAttribute("class")).isEqualTo("bad");
            assertThat(browser.findElement(By.id("central")).getText()).contains("Connect");
            assertThat(((JavascriptExecutor) browser).executeScript("return window.sameDocument")).isEqualTo("yes");
            screenshot("status-central-down.png");
        }
    }

    private String count(String state) {
        return browser.findElements(By.cssSelector("#count-" + state + " b")).stream().findFirst()
                .map(e -> e.getText()).orElse("");
    }

    private void screenshot(String name) throws Exception {
        File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
        Path out = Files.createDirectories(Path.of("target", "screenshots")).resolve(name);
        Files.copy(shot.toPath(), out, StandardCopyOption.REPLACE_EXISTING);
    }
}
