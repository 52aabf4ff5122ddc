package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import org.edgebridge.central.Faults;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;

/**
 * The status page's "Check central" button in a real Chromium, and {@code POST /api/check-central} behind it: the
 * admin token is asked for, then each step shows as a row; against a central that fails the check request, that row
 * says FAIL with its fix. Without the token the API answers 401 and runs nothing. Screenshot:
 * target/screenshots/check-central-page.png.
 */
class CheckCentralPageIT extends PageTest {
    @Test
    void the_button_asks_for_the_token_runs_the_check_and_shows_each_step_with_its_fix() throws Exception {
        site = new TestSite(dir.resolve("data"));
        assertThat(site.post("/api/check-central", null).statusCode()).isEqualTo(401);
        assertThat(site.central.checks()).as("nothing ran without the token").isZero();

        chromium = Browser.start(dir);
        chromium.driver().get(site.adminUrl("/"));
        chromium.driver().findElement(By.id("check-run")).click();
        await().atMost(Duration.ofSeconds(10))
                .until(() ->
                        chromium.driver().findElement(By.id("check-token-form")).isDisplayed());
        chromium.driver().findElement(By.id("check-token")).sendKeys("test-token");
        chromium.driver()
                .findElement(By.cssSelector("#check-token-form button"))
                .click();
        await().atMost(Duration.ofSeconds(60)).until(() -> text("#check-result").startsWith("every step passed"));
        assertThat(text("#check-steps tr[data-step=request] td")).isEqualTo("PASS");
        assertThat(text("#check-steps tr[data-step=clock] td:nth-child(3)")).contains("within 10 s");
        assertThat(site.central.checks()).isEqualTo(1);

        site.central.faults(Faults.status(503, null, 1));
        chromium.driver().findElement(By.id("check-run")).click();
        await().atMost(Duration.ofSeconds(60)).until(() -> text("#check-result").equals("1 of 8 steps failed"));
        assertThat(text("#check-steps tr[data-step=request] td")).isEqualTo("FAIL");
        assertThat(text("#check-steps tr[data-step=request] td:nth-child(3)"))
                .contains("central answered 503", "fix: central itself fails");
        chromium.script("document.getElementById('check-section').scrollIntoView()");
        chromium.screenshot("check-central-page.png");

        JsonNode report = DeviceSimulator.JSON.readTree(
                site.post("/api/check-central", "test-token").body());
        assertThat(report.path("ok").asBoolean()).isTrue();
        assertThat(report.path("steps").size()).isEqualTo(8);
    }
}
