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
    private static final List<String> READS =
            List.of("/api/status", "/api/outbox", "/api/outbox/dev-reads/READS-1", "/api/devices", "/metrics");

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
            // the scheme's name is case-insensitive (RFC 9110), the token is not (raw requests: the header as written)
            int port = site.bridge.adminPort();
            for (String scheme : List.of("bearer", "BEARER")) {
                assertThat(rawGet(port, "/api/status", "127.0.0.1:" + port, "test-token", scheme))
                        .as(scheme)
                        .startsWith("HTTP/1.1 200");
            }
            assertThat(rawGet(port, "/api/status", "127.0.0.1:" + port, "TEST-TOKEN", "Bearer"))
                    .startsWith("HTTP/1.1 401");
            for (String open : List.of("/", "/health/live", "/health/ready")) {
                assertThat(get(site, open, null).statusCode()).as(open).isEqualTo(200);
            }
        }
    }

    /**
     * Jetty caches header lines per connection and matched a cached line case-insensitively, value included: on one
     * kept-alive connection a wrong-case token after the right one was let in, and the right one after a wrong-case
     * one got 401 (seen with the JDK's HttpClient, which keeps connections alive).
     */
    @Test
    void on_one_kept_alive_connection_the_token_is_still_matched_case_and_all() throws Exception {
        try (TestSite site = new TestSite(dir.resolve("data"), "admin.tokenForReads=always")) {
            int port = site.bridge.adminPort();
            assertThat(twoOnOneConnection(port, "test-token", "TEST-TOKEN")).containsExactly(200, 401);
            assertThat(twoOnOneConnection(port, "Test-Token", "test-token")).containsExactly(401, 200);
            assertThat(twoOnOneConnection(port, "test-token", "test-token")).containsExactly(200, 200);
        }
    }

    /** The status codes of two GETs of /api/status on one connection, with these tokens. */
    private static List<Integer> twoOnOneConnection(int port, String first, String second) throws Exception {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            java.io.DataInputStream in =
                    new java.io.DataInputStream(new java.io.BufferedInputStream(s.getInputStream()));
            List<Integer> codes = new java.util.ArrayList<>();
            for (String token : List.of(first, second)) {
                String request = "GET /api/status HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nAuthorization: Bearer "
                        + token + "\r\n\r\n";
                s.getOutputStream().write(request.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                String status = line(in);
                codes.add(Integer.parseInt(status.split(" ")[1]));
                int length = -1;
                for (String header = line(in); !header.isEmpty(); header = line(in)) {
                    if (header.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                        length = Integer.parseInt(header.substring(15).trim());
                    }
                }
                assertThat(length)
                        .as("a kept-alive answer has a Content-Length")
                        .isNotNegative();
                in.readFully(new byte[length]);
            }
            return codes;
        }
    }

    private static String line(java.io.DataInputStream in) throws java.io.IOException {
        StringBuilder b = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new java.io.EOFException("connection closed after: " + b);
            }
            if (c != '\r') {
                b.append((char) c);
            }
        }
        return b.toString();
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

    /**
     * Issue 40, point 7: DNS rebinding. A page on rebind.example that rebinds its name to 127.0.0.1 makes the admin's
     * browser (reaching the bridge through the SSH tunnel of docs/install.md) send {@code Host: rebind.example:8080}:
     * with the shipped loopback default that read answered 200 with the outbox's payloads. Now it is 403
     * {@code host_not_allowed} unless it carries the token; localhost, 127.0.0.1 and [::1] on any port still read.
     */
    @Test
    void on_loopback_a_read_for_a_foreign_host_is_refused_unless_it_carries_the_token() throws Exception {
        try (TestSite site = new TestSite(dir.resolve("data"));
                DeviceSimulator device = site.device("dev-rebind")) {
            device.connectAndSubscribe();
            device.publish("t", DeviceSimulator.command("REBIND-1", "\"secret\":\"pin-4711\""));
            device.awaitReceipt("REBIND-1", "accepted");
            int port = site.bridge.adminPort();
            List<String> reads = READS.stream()
                    .map(r -> r.replace("dev-reads/READS-1", "dev-rebind/REBIND-1"))
                    .toList();
            for (String path : reads) {
                String refused = rawGet(port, path, "rebind.example:" + port, null);
                assertThat(refused)
                        .as(path)
                        .startsWith("HTTP/1.1 403")
                        .contains("host_not_allowed")
                        .doesNotContain("pin-4711");
                assertThat(rawGet(port, path, "rebind.example:" + port, "test-token"))
                        .as(path)
                        .startsWith("HTTP/1.1 200");
            }
            for (String host : List.of("localhost:9000", "127.0.0.1:" + port, "[::1]:8080", "LOCALHOST")) {
                assertThat(rawGet(port, "/api/outbox/dev-rebind/REBIND-1", host, null))
                        .as(host)
                        .startsWith("HTTP/1.1 200");
            }
            for (String open : List.of("/", "/health/live", "/health/ready")) {
                assertThat(rawGet(port, open, "rebind.example", null)).as(open).startsWith("HTTP/1.1 200");
            }
            assertThat(site.get("/metrics").body())
                    .contains("edgebridge_admin_reads_foreign_host_total " + reads.size() + ".0");
        }
    }

    /** A GET with the Host header given (the JDK's client will not send another Host than the URI's). */
    private static String rawGet(int port, String path, String host, String token) throws Exception {
        return rawGet(port, path, host, token, "Bearer");
    }

    private static String rawGet(int port, String path, String host, String token, String scheme) throws Exception {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            String request = "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n"
                    + (token == null ? "" : "Authorization: " + scheme + " " + token + "\r\n") + "\r\n";
            s.getOutputStream().write(request.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            return new String(s.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
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
