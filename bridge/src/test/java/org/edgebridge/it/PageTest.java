package org.edgebridge.it;

import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;

/** The setup of a status-page test: a {@link TestSite} and a real Chromium ({@link Browser}), both closed after each test. */
abstract class PageTest {
    @TempDir
    Path dir;

    TestSite site;
    Browser chromium;

    @AfterEach
    void closeBrowserAndSite() {
        if (chromium != null) {
            chromium.close();
        }
        if (site != null) {
            site.close();
        }
    }

    /** The text of the first element {@code css} selects, or "", read in one script: an element found before the page redraws goes stale. */
    String text(String css) {
        Object text =
                chromium.script("const e = document.querySelector(arguments[0]); return e ? e.textContent : '';", css);
        return String.valueOf(text).strip();
    }

    /**
     * Clicks the element, found again if the page redrew it between finding and clicking (a stale element takes no
     * click, so the click is not doubled).
     */
    static void click(WebDriver page, String css) {
        await().ignoreException(StaleElementReferenceException.class)
                .atMost(Duration.ofSeconds(20))
                .until(() -> {
                    page.findElement(By.cssSelector(css)).click();
                    return true;
                });
    }

    /** A screenshot with the desk at the top of the window. */
    void deskScreenshot(String name) throws Exception {
        chromium.script("document.getElementById('desk-section').scrollIntoView()");
        chromium.screenshot(name);
    }
}
