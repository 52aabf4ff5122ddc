package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.edgebridge.central.Faults;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;

/**
 * The status page's list of pending commands (docs/desk.md, "Pending commands") in a real headless Chromium: an admin
 * parks a pending command central would fail on (a 500 for it alone), the token asked for once and kept in the tab;
 * its device's next command waits behind it while another device's goes; then the admin rejects it on the desk and
 * the device gets its final receipt, central never having seen it. Screenshots: target/screenshots/desk-pending.png,
 * desk-pending-parked.png.
 */
class PendingDeskPageIT extends PageTest {
    private static final Duration PAGE = Duration.ofSeconds(20);

    @Test
    void an_admin_parks_a_pending_command_from_the_page_and_rejects_it_on_the_desk() throws Exception {
        site = new TestSite(dir);
        site.central.faults(Faults.poison("P-1", 500));
        chromium = Browser.start(dir);
        WebDriver page = chromium.driver();
        try (DeviceSimulator a = site.device("pend-a");
                DeviceSimulator b = site.device("pend-b")) {
            a.connectAndSubscribe();
            b.connectAndSubscribe();
            assertThat(site.post("/api/forwarder/pause", "test-token").statusCode())
                    .isEqualTo(200);
            a.publish("t", DeviceSimulator.command("P-1", ""));
            a.publish("t", DeviceSimulator.command("P-2", ""));
            b.publish("t", DeviceSimulator.command("B-1", ""));
            a.awaitReceipt("P-2", "stored");
            b.awaitReceipt("B-1", "stored");

            page.get(site.adminUrl("/"));
            await().ignoreException(StaleElementReferenceException.class)
                    .atMost(PAGE)
                    .until(() -> page.findElements(By.cssSelector("#desk-pending tr[data-pending]"))
                                    .size()
                            == 3);
            assertThat(text("tr[data-pending='P-1']")).contains("pend-a").contains("P-1");
            deskScreenshot("desk-pending.png");

            click(page, "button[data-park='P-1']");
            assertThat(page.findElement(By.id("desk-token-form")).isDisplayed())
                    .as("the page asks for the token")
                    .isTrue();
            assertThat(site.getJson("/api/outbox/pend-a/P-1").path("state").asText())
                    .as("nothing before the token")
                    .isEqualTo("pending");
            page.findElement(By.id("desk-token")).sendKeys("test-token");
            click(page, "#desk-token-use");
            await().ignoreException(StaleElementReferenceException.class)
                    .atMost(PAGE)
                    .until(() -> text("#desk-result").startsWith("parked P-1 of pend-a (parked_by_admin)")
                            && page.findElements(By.cssSelector(
                                                    "[data-group='parked_by_admin/pend-a'] tr[data-parked='P-1']"))
                                            .size()
                                    == 1
                            && page.findElements(By.cssSelector("tr[data-pending='P-1']"))
                                    .isEmpty());
            assertThat(site.getJson("/api/outbox/pend-a/P-1").path("code").asText())
                    .isEqualTo("parked_by_admin");
            deskScreenshot("desk-pending-parked.png");

            assertThat(site.post("/api/forwarder/resume", "test-token").statusCode())
                    .isEqualTo(200);
            assertThat(b.awaitFinal("B-1").path("status").asText()).isEqualTo("accepted");
            assertThat(site.getJson("/api/outbox/pend-a/P-2").path("state").asText())
                    .as("waits behind P-1")
                    .isEqualTo("pending");

            click(page, "button[data-reject-code='parked_by_admin']");
            page.switchTo().alert().accept();
            assertThat(a.awaitFinal("P-1").path("code").asText()).isEqualTo("rejected_by_admin");
            assertThat(a.awaitFinal("P-2").path("status").asText()).isEqualTo("accepted");
            await().ignoreException(StaleElementReferenceException.class)
                    .atMost(PAGE)
                    .until(() -> text("#desk-result").equals("rejected 1")
                            && text("#desk-total").equals("none"));
            assertThat(page.findElement(By.id("desk-token-form")).isDisplayed())
                    .as("asked once")
                    .isFalse();
            assertThat(page.getCurrentUrl()).doesNotContain("test-token");
            assertThat(site.central.inbox().entries())
                    .extracting(e -> e.eventId())
                    .contains("B-1", "P-2")
                    .doesNotContain("P-1");
            assertThat(site.getJson("/api/outbox/pend-a/P-1").path("history"))
                    .extracting(h -> h.path("kind").asText())
                    .containsExactly("parked_by_admin", "rejected_by_admin");
        }
    }
}
