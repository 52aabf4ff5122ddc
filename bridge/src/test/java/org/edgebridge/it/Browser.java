package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * A real headless Chromium (Debian's chromium and chromium-driver, installed by .ci/run) for the status page's tests,
 * with its profile in a test's temp dir; screenshots go to target/screenshots. Outside CI a test is skipped when the
 * two are not installed; in CI it fails.
 */
final class Browser implements AutoCloseable {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

    private final ChromeDriver driver;

    private Browser(ChromeDriver driver) {
        this.driver = driver;
    }

    static Browser start(Path dir) {
        boolean present = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
        if (System.getenv("CI") == null) {
            Assumptions.assumeTrue(
                    present, "Debian's chromium and chromium-driver are not installed (.ci/run installs them)");
        }
        assertThat(present)
                .as("chromium and chromedriver must be installed in CI")
                .isTrue();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments(
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--disable-quic",
                "--window-size=1280,900",
                "--user-data-dir=" + dir.resolve("chromium-profile"));
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        return new Browser(new ChromeDriver(service, options));
    }

    ChromeDriver driver() {
        return driver;
    }

    /** Runs a script in the page and returns what it returns. */
    Object script(String js, Object... args) {
        return ((JavascriptExecutor) driver).executeScript(js, args);
    }

    /** A screenshot of the window, as target/screenshots/{name}. */
    Path screenshot(String name) throws Exception {
        File shot = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
        Path out = Files.createDirectories(Path.of("target", "screenshots")).resolve(name);
        Files.copy(shot.toPath(), out, StandardCopyOption.REPLACE_EXISTING);
        return out;
    }

    @Override
    public void close() {
        driver.quit();
    }
}
