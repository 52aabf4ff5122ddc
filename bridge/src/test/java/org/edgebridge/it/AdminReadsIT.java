package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.edgebridge.device.DeviceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 24, point 9: on an admin address that is not loopback every read (the status, the outbox with its payloads,
 * the devices, the metrics) needs the admin token; the page's HTML and the health checks do not. Tests bind loopback
 * only, so they ask for the same rule with {@code admin.tokenForReads=always}; that {@code auto} turns it on for
 * any non-loopback admin.host is ConfigLoaderTest's.
 */
class AdminReadsIT {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final List<String> READS = List.of("/api/status", "/api/outbox", "/api/outbox/dev-reads/READS-1",
            "/api/devices", "/metrics");

    @TempDir
    Path dir;

    @Test
    void with_reads_guarded_every_read_but_the_page_and_health_needs_the_admin_token() throws Exception {
        try (TestSite site = new TestSite(dir.resolve("data"), "admin.tokenForReads=always");
                DeviceSimulator device = site.device("dev-reads")) {
            device.connectAndSubscribe();
            device.publish("t", DeviceSimulator.command("READS-1", "\"secret\":\"pin-4711\""));
            device.awaitReceipt("READS-1", "accepted");
            for (String path : READS) {
                HttpResponse<String> without = get(site, path, null);
                assertThat(without.statusCode()).as(path).isEqualTo(401);
                assertThat(without.body()).as(path).contains("\"unauthorized\"").doesNotContain("pin-4711");
                assertThat(get(site, path, "wrong-token").statusCode()).as(path).isEqualTo(401);
                assertThat(get(site, path, "test-token").statusCode()).as(path).isEqualTo(200);
            }
            for (String open : List.of("/", "/health/live", "/health/ready")) {
                assertThat(get(site, open, null).statusCode()).as(open).isEqualTo(200);
            }
        }
    }

    @Test
    void on_loopback_with_the_shipped_default_reads_need_no_token_and_posts_still_do() throws Exception {
        try (TestSite site = new TestSite(dir.resolve("data"))) {
            for (String path : List.of("/api/status", "/api/devices", "/metrics")) {
                assertThat(get(site, path, null).statusCode()).as(path).isEqualTo(200);
            }
            assertThat(site.post("/api/forwarder/pause", null).statusCode()).isEqualTo(401);
        }
    }

    private static HttpResponse<String> get(TestSite site, String path, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(site.adminUrl(path)));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
