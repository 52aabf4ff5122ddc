package org.edgebridge.it;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

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
        Object text = chromium.script("const e = document.querySelector(arguments[0]); return e ? e.textContent : '';", css);
        return String.valueOf(text).strip();
    }
}
