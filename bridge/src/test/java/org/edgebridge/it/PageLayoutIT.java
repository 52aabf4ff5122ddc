package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.Dimension;

/**
 * The status page uses its width (issue 43), in a real Chromium at 1280 px (a laptop) and 420 px (a phone): every
 * value of the panels (site, outbox, central, broker, disk, data to central) reads on one or two lines, no word is cut in the middle
 * ("CONNEC-T", "forgotte-n"), the page never scrolls sideways, and at 1280 px the panels fill the width (no empty
 * right third). Screenshots: target/screenshots/status-1280.png, status-420.png.
 */
class PageLayoutIT extends PageTest {
    /**
     * For every dd of the panels: its lines (height over line height) and each word wider than the dd (which the
     * browser would have to cut), measured in the dd's own font.
     */
    private static final String MEASURE = """
            const out = [];
            const probe = document.createElement('span');
            probe.style.whiteSpace = 'nowrap'; probe.style.position = 'absolute'; probe.style.visibility = 'hidden';
            document.body.appendChild(probe);
            for (const dd of document.querySelectorAll('#site dd, #oldest, #intake, #central dd, #broker dd, #disk dd, #budget dd')) {
              const style = getComputedStyle(dd);
              probe.style.font = style.font;
              const lineHeight = parseFloat(style.lineHeight);
              const lines = Math.round(dd.getBoundingClientRect().height / lineHeight);
              const cut = dd.textContent.split(/\\s+/).filter(w => { probe.textContent = w; return probe.getBoundingClientRect().width > dd.clientWidth + 1; });
              out.push({panel: dd.closest('dl').id || 'outbox', label: dd.previousElementSibling ? dd.previousElementSibling.textContent : '',
                  text: dd.textContent, lines: lines, cut: cut.join(' ')});
            }
            probe.remove();
            return out;
            """;

    @Test
    void at_1280_and_420_px_every_value_reads_on_one_or_two_lines_without_a_word_cut_and_nothing_scrolls_sideways()
            throws Exception {
        site = new TestSite(dir.resolve("data"));
        try (DeviceSimulator device = site.device("field-node-07")) {
            device.connectAndSubscribe();
            device.publish("workorder/arrive", DeviceSimulator.command("LAYOUT-1", "\"action\":\"ARRIVE\""));
            device.awaitFinal("LAYOUT-1");
            chromium = Browser.start(dir);
            for (int width : List.of(1280, 420)) {
                chromium.driver().manage().window().setSize(new Dimension(width, width == 1280 ? 1400 : 2600));
                chromium.driver().get(site.adminUrl("/"));
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> text("#headline").contains("healthy")
                                && !text("#disk dd").contains("loading")
                                && text("#disk").contains("writes")
                                && text("#budget").contains("most by"));
                assertThat(((Number) chromium.script("return window.innerWidth")).intValue())
                        .isEqualTo(width);
                assertThat(((Number) chromium.script("return document.documentElement.scrollWidth")).intValue())
                        .as("the page does not scroll sideways at " + width + " px")
                        .isLessThanOrEqualTo(width);
                @SuppressWarnings("unchecked")
                List<Map<String, Object>> values = (List<Map<String, Object>>) chromium.script(MEASURE);
                assertThat(values).hasSizeGreaterThan(25);
                assertThat(values).as("at " + width + " px").allSatisfy(v -> {
                    assertThat(((Number) v.get("lines")).intValue())
                            .as(v.get("panel") + " / " + v.get("label") + ": " + v.get("text"))
                            .isBetween(1, 2);
                    assertThat(v.get("cut"))
                            .as(v.get("panel") + " / " + v.get("label") + ": a word cut in the middle")
                            .isEqualTo("");
                });
                if (width == 1280) {
                    Number right = (Number) chromium.script(
                            "return Math.max(...[...document.querySelectorAll('main > section:not(.wide)')]"
                                    + ".map(s => s.getBoundingClientRect().right))");
                    Number mainRight = (Number) chromium.script("const m = document.querySelector('main'); "
                            + "return m.getBoundingClientRect().right - parseFloat(getComputedStyle(m).paddingRight)");
                    assertThat(right.doubleValue())
                            .as("the panels reach the right edge: no empty right third")
                            .isGreaterThan(mainRight.doubleValue() - 2);
                }
                chromium.screenshot("status-" + width + ".png");
            }
        }
    }
}
