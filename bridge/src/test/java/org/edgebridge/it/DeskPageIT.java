package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.edgebridge.device.DeviceSimulator;
import org.edgebridge.outbox.OutboxFixture;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;

/**
 * The status page's desk for parked commands (docs/desk.md) in a real headless Chromium, with the shipped defaults:
 * commands central refused 50 times are grouped by code and device with their reason, attempts, age and payload; a
 * selection is requeued and all of one code rejected, the admin token asked for once and kept in the tab, and the
 * devices get their receipts. Screenshots: target/screenshots/desk-parked.png, desk-token.png, desk-requeued.png,
 * desk-rejected.png.
 */
class DeskPageIT extends PageTest {
    private static final Duration PAGE = Duration.ofSeconds(20);

    @Test
    void an_admin_requeues_a_selection_and_rejects_all_of_one_code_and_the_devices_get_their_receipts()
            throws Exception {
        Path data = dir.resolve("data");
        try (OutboxFixture fixture = OutboxFixture.at(data.resolve("outbox.db"))) {
            fixture.parked("desk-p", "P-1", "ingest_server_error");
        }
        site = new TestSite(data);
        chromium = Browser.start(dir);
        WebDriver page = chromium.driver();
        try (DeviceSimulator a = site.device("desk-a");
                DeviceSimulator b = site.device("desk-b")) {
            a.connectAndSubscribe();
            b.connectAndSubscribe();
            ParkedDeskApiIT.parkTogether(site, a, List.of("A-1", "A-2", "A-3"), b, List.of("B-1", "B-2"));

            page.get(site.adminUrl("/"));
            await().ignoreException(StaleElementReferenceException.class)
                    .atMost(PAGE)
                    .until(() -> text("#desk-total").equals("6 parked")
                            && page.findElements(By.cssSelector(
                                                    "[data-group='parked_by_admin/desk-a'] tr[data-parked]"))
                                            .size()
                                    == 3
                            && page.findElements(By.cssSelector(
                                                    "[data-group='parked_by_admin/desk-b'] tr[data-parked]"))
                                            .size()
                                    == 2
                            && page.findElements(By.cssSelector(
                                                    "[data-group='ingest_server_error/desk-p'] tr[data-parked]"))
                                            .size()
                                    == 1);
            String a1 = text("tr[data-parked='A-1']");
            assertThat(a1).contains("parked by an admin").containsPattern("\\d+ s");
            click(page, "button[data-payload='A-1']");
            await().ignoreException(StaleElementReferenceException.class)
                    .atMost(PAGE)
                    .until(() -> text("pre[data-payload-of='A-1']").contains("\"commandId\":\"A-1\""));
            deskScreenshot("desk-parked.png");

            click(page, "input[data-select='A-1']");
            click(page, "input[data-select='B-1']");
            click(page, "#desk-requeue");
            assertThat(page.findElement(By.id("desk-token-form")).isDisplayed())
                    .as("the page asks for the token")
                    .isTrue();
            assertThat(a.receiptsFor("A-1"))
                    .as("nothing is done before the token")
                    .extracting(r -> r.path("status").asText())
                    .containsOnly("stored");
            page.findElement(By.id("desk-token")).sendKeys("test-token");
            deskScreenshot("desk-token.png");
            click(page, "#desk-token-use");
            assertThat(a.awaitFinal("A-1").path("status").asText()).isEqualTo("accepted");
            assertThat(b.awaitFinal("B-1").path("status").asText()).isEqualTo("accepted");
            await().ignoreException(StaleElementReferenceException.class)
                    .atMost(PAGE)
                    .until(() -> text("#desk-result").equals("requeued 2")
                            && text("#desk-total").equals("4 parked"));
            deskScreenshot("desk-requeued.png");

            click(page, "button[data-reject-code='parked_by_admin']");
            page.switchTo().alert().accept();
            for (String id : List.of("A-2", "A-3")) {
                assertThat(a.awaitFinal(id).path("code").asText()).isEqualTo("rejected_by_admin");
            }
            assertThat(b.awaitFinal("B-2").path("code").asText()).isEqualTo("rejected_by_admin");
            await().ignoreException(StaleElementReferenceException.class)
                    .atMost(PAGE)
                    .until(() -> text("#desk-result").equals("rejected 3")
                            && text("#desk-total").equals("1 parked")
                            && page.findElements(By.cssSelector("[data-code='parked_by_admin']"))
                                    .isEmpty());
            assertThat(page.findElements(By.cssSelector("[data-group='ingest_server_error/desk-p'] tr[data-parked]")))
                    .hasSize(1);
            assertThat(page.findElement(By.id("desk-token-form")).isDisplayed())
                    .as("asked once")
                    .isFalse();
            assertThat(page.getCurrentUrl()).doesNotContain("test-token");
            assertThat(chromium.script("return sessionStorage.getItem('edgeBridgeAdminToken')"))
                    .isEqualTo("test-token");
            deskScreenshot("desk-rejected.png");

            JsonNode history = site.getJson("/api/outbox/desk-a/A-3").path("history");
            assertThat(history.get(history.size() - 1).path("detail").asText()).contains("bulk: code=parked_by_admin");
            assertThat(site.getJson("/api/outbox/desk-b/B-1").path("history").toString())
                    .contains("bulk: a list of 2");
        }
    }
}
