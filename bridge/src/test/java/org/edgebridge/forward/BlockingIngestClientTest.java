package org.edgebridge.forward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.edgebridge.forward.ScriptedHttpServer.head;
import static org.edgebridge.forward.ScriptedHttpServer.ok;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPInputStream;
import javax.net.ssl.SSLContext;
import org.edgebridge.config.ConfigLoader;
import org.edgebridge.forward.auth.ClientCertificate;
import org.edgebridge.forward.auth.ClientCertificateFiles;
import org.edgebridge.forward.auth.TlsContexts;
import org.edgebridge.tls.DevCertificates;
import org.edgebridge.worker.Workers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ingest.client=blocking} against a real local HTTP(S) server that answers as each test scripts. */
class BlockingIngestClientTest {
    private static final byte[] BODY = "{\"events\":[]}".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    private ScriptedHttpServer server(ScriptedHttpServer.Script script) throws IOException {
        return server(null, script);
    }

    private ScriptedHttpServer server(SSLContext tls, ScriptedHttpServer.Script script) throws IOException {
        ScriptedHttpServer s = new ScriptedHttpServer(tls, script);
        toClose.add(s);
        return s;
    }

    /**
     * The client made directly: the configuration takes {@code ingest.client=blocking} for an https:// central only,
     * but most of what is tested here does not depend on TLS, so most servers here are plain http.
     */
    private BlockingIngestClient client(String url, String... more) {
        List<String> sets = new ArrayList<>(List.of("ingest.url=" + url, "ingest.timeout=1s"));
        sets.addAll(List.of(more));
        ForwarderSettings settings = ConfigLoader.load(null, sets).forwarder();
        Optional<ClientCertificateFiles> certificates =
                settings.credentials().clientCertificate().map(c -> new ClientCertificateFiles(c, Clock.systemUTC()));
        BlockingIngestClient c = new BlockingIngestClient(settings, certificates, new Workers(() -> {}));
        toClose.add(c);
        return c;
    }

    private static IngestReply post(BlockingIngestClient client) {
        return client.post("batch-1", BODY, Optional.of("secret"));
    }

    /** One request, timed out at the 1 s deadline (not before, not long after), and counted as cut there. */
    private static void assertCutAtTheDeadline(BlockingIngestClient client) {
        long start = System.nanoTime();
        IngestReply reply = post(client);

        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .isBetween(Duration.ofMillis(950), Duration.ofMillis(1500));
        assertThat(reply.timedOut()).isTrue();
        assertThat(client.cutReplies()).containsEntry("deadline", 1L);
    }

    private static boolean trickle(OutputStream out, int bytes, long everyMs) throws Exception {
        for (int i = 0; i < bytes; i++) {
            out.write('x');
            out.flush();
            Thread.sleep(everyMs); // the misbehaviour itself: central's pace, not a wait for a result
        }
        return false;
    }

    @Test
    void sends_the_headers_and_the_gzipped_body_and_reads_the_reply() throws Exception {
        ScriptedHttpServer central = server((r, out) -> {
            head(out, "503 Service Unavailable", "Retry-After: 7", "Content-Length: 4");
            out.write("busy".getBytes(StandardCharsets.UTF_8));
            return true;
        });
        BlockingIngestClient client = client(central.url("http"), "ingest.compression=gzip");

        IngestReply reply = post(client);

        assertThat(reply.status()).isEqualTo(503);
        assertThat(new String(reply.body(), StandardCharsets.UTF_8)).isEqualTo("busy");
        assertThat(reply.retryAfter()).contains("7");
        ScriptedHttpServer.Request r = central.requests().get(0);
        assertThat(r.requestLine()).isEqualTo("POST /ingest HTTP/1.1");
        assertThat(r.header("Content-Type")).isEqualTo("application/json");
        assertThat(r.header("Idempotency-Key")).isEqualTo("batch-1");
        assertThat(r.header("Authorization")).isEqualTo("Bearer secret");
        assertThat(r.header("Content-Encoding")).isEqualTo("gzip");
        assertThat(new GZIPInputStream(new ByteArrayInputStream(r.body())).readAllBytes())
                .isEqualTo(BODY);
        assertThat(client.wire().sentBytes()).isGreaterThan(r.body().length + 100L);
        assertThat(client.wire().receivedBytes()).isGreaterThanOrEqualTo("HTTP/1.1 200 OK\r\n".length() + 4 + 20L);
        assertThat(client.wire().bodyBytes()).isEqualTo(BODY.length);
    }

    @Test
    void a_body_that_trickles_in_is_cut_at_the_deadline() throws Exception {
        ScriptedHttpServer central = server((r, out) -> {
            head(out, "200 OK", "Content-Length: 100");
            return trickle(out, 100, 100);
        });
        BlockingIngestClient client = client(central.url("http"));

        assertCutAtTheDeadline(client);
        assertThat(client.cutReplies()).containsEntry("too_large", 0L);
    }

    @Test
    void a_trickling_connection_cut_at_the_deadline_is_closed() throws Exception {
        AtomicInteger writesRefused = new AtomicInteger();
        ScriptedHttpServer central = server((r, out) -> {
            head(out, "200 OK", "Content-Length: 100");
            try {
                return trickle(out, 100, 500);
            } catch (IOException e) {
                writesRefused.incrementAndGet();
                return false;
            }
        });
        BlockingIngestClient client = client(central.url("http"));

        assertThat(post(client).timedOut()).isTrue();
        long cut = System.nanoTime();
        await().atMost(Duration.ofSeconds(20)).until(() -> writesRefused.get() > 0);

        assertThat(writesRefused.get()).isEqualTo(1);
        assertThat(Duration.ofNanos(System.nanoTime() - cut)).isLessThan(Duration.ofSeconds(3));
    }

    @Test
    void headers_that_trickle_in_are_cut_at_the_deadline_by_the_sweeper() throws Exception {
        // no read times out and the JDK parses the headers: only the deadline thread can end this
        ScriptedHttpServer central = server((r, out) -> {
            out.write("HTTP/1.1 200 OK\r\n".getBytes(StandardCharsets.ISO_8859_1));
            return trickle(out, 100, 100);
        });
        BlockingIngestClient client = client(central.url("http"));

        assertCutAtTheDeadline(client);
    }

    @Test
    void an_https_body_that_stops_is_cut_at_the_deadline_by_closing_its_socket() throws Exception {
        DevCertificates.Material ca = DevCertificates.ensure(dir.resolve("tls"));
        ScriptedHttpServer central = server(serverTls(ca), (r, out) -> {
            head(out, "200 OK", "Content-Length: 100");
            trickle(out, 3, 300); // the last byte at 0.6 s: a read timeout (1 s) would end it at 1.6 s
            Thread.sleep(5000); // the misbehaviour itself: a body that stops, not a wait for a result
            return false;
        });
        BlockingIngestClient client = client(central.url("https"), clientCertificate(ca, "edge-01"));

        long start = System.nanoTime();
        IngestReply reply = post(client);

        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .isBetween(Duration.ofMillis(950), Duration.ofMillis(1400));
        assertThat(reply.timedOut()).isTrue();
    }

    @Test
    void a_body_over_the_cap_is_cut_and_its_connection_not_kept() throws Exception {
        ScriptedHttpServer central = server((r, out) -> {
            if (r.connection() == 1) { // chunked: no length to go by, the cap is found while reading
                head(out, "200 OK", "Transfer-Encoding: chunked");
                byte[] chunk = new byte[16 * 1024];
                for (int i = 0; i < 8; i++) {
                    out.write((Integer.toHexString(chunk.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                    out.write(chunk);
                    out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                }
                out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return true;
            }
            if (r.connection() == 2) {
                head(out, "200 OK", "Content-Length: 1000000");
                out.write(new byte[1000]);
                out.flush();
                return true;
            }
            return ok(out, "{}");
        });
        BlockingIngestClient client = client(central.url("http"), "ingest.maxReplyBytes=64KiB");

        IngestReply read = post(client);
        IngestReply declared = post(client);
        IngestReply after = post(client);

        assertThat(read.transportError()).isEqualTo(CappedBody.readTooLarge(64 * 1024));
        assertThat(declared.transportError()).isEqualTo(CappedBody.declaredTooLarge(1_000_000, 64 * 1024));
        assertThat(after.status()).isEqualTo(200);
        assertThat(client.cutReplies()).containsEntry("too_large", 2L);
        assertThat(central.requests())
                .extracting(ScriptedHttpServer.Request::connection)
                .containsExactly(1, 2, 3);
    }

    @Test
    void a_body_shorter_than_it_declared_is_a_dropped_connection_not_a_reply() throws Exception {
        ScriptedHttpServer central = server((r, out) -> {
            head(out, "200 OK", "Content-Length: 100");
            out.write("{\"receipts\"".getBytes(StandardCharsets.UTF_8));
            return false; // closes the connection
        });
        BlockingIngestClient client = client(central.url("http"));

        IngestReply reply = post(client);

        assertThat(reply.status()).isZero();
        assertThat(reply.transportError())
                .startsWith("connection to 127.0.0.1:" + central.port() + " failed")
                .contains("after 11 of the 100 bytes");
    }

    @Test
    void a_redirect_is_returned_not_followed() throws Exception {
        ScriptedHttpServer central = server((r, out) -> {
            head(out, "307 Temporary Redirect", "Location: http://127.0.0.1:1/elsewhere", "Content-Length: 0");
            return true;
        });
        BlockingIngestClient client = client(central.url("http"));

        IngestReply reply = post(client);

        assertThat(reply.status()).isEqualTo(307);
        assertThat(reply.location()).contains("http://127.0.0.1:1/elsewhere");
        assertThat(central.requests()).hasSize(1);
    }

    @Test
    void a_post_is_not_sent_again_when_central_closes_the_connection_after_reading_it() throws Exception {
        // the first on a new connection, the second on the kept-alive one: HttpURLConnection retries a buffered POST
        // on either, never a streamed one
        AtomicInteger answered = new AtomicInteger();
        ScriptedHttpServer central = server((r, out) -> answered.incrementAndGet() == 1 && ok(out, "{}"));
        BlockingIngestClient client = client(central.url("http"));

        IngestReply first = post(client);
        IngestReply second = post(client);
        // a resend would come at once: nothing more may arrive for a while
        await().during(Duration.ofMillis(300))
                .atMost(Duration.ofSeconds(2))
                .until(() -> central.requests().size() == 2);

        assertThat(first.status()).isEqualTo(200);
        assertThat(second.status()).isZero();
        assertThat(second.transportError()).startsWith("connection to 127.0.0.1:" + central.port());
        assertThat(central.requests()).hasSize(2);
        assertThat(central.connections()).isEqualTo(1);

        ScriptedHttpServer closing = server((r, out) -> false);
        BlockingIngestClient fresh = client(closing.url("http"));
        assertThat(post(fresh).status()).isZero();
        await().during(Duration.ofMillis(300))
                .atMost(Duration.ofSeconds(2))
                .until(() -> closing.requests().size() == 1);
    }

    @Test
    void a_connection_is_kept_alive_for_the_next_request() throws Exception {
        ScriptedHttpServer central = server((r, out) -> ok(out, "{\"receipts\":[]}"));
        BlockingIngestClient client = client(central.url("http"));

        assertThat(post(client).status()).isEqualTo(200);
        assertThat(post(client).status()).isEqualTo(200);

        assertThat(central.requests()).hasSize(2);
        assertThat(central.connections()).isEqualTo(1);
    }

    @Test
    void a_client_certificate_rotated_on_disk_is_presented_on_a_new_connection() throws Exception {
        DevCertificates.Material ca = DevCertificates.ensure(dir.resolve("tls"));
        ScriptedHttpServer central = server(serverTls(ca), (r, out) -> ok(out, "{}"));
        BlockingIngestClient client = client(central.url("https"), clientCertificate(ca, "edge-01"));

        assertThat(post(client).status()).isEqualTo(200);
        assertThat(post(client).status()).isEqualTo(200); // kept alive
        clientCertificate(ca, "edge-01");
        // a new modification time whatever the file system's clock granularity
        FileTime later = FileTime.from(Instant.now().plusSeconds(2));
        Files.setLastModifiedTime(dir.resolve("tls/bridge.pem"), later);
        Files.setLastModifiedTime(keyFile(), later);
        assertThat(post(client).status()).isEqualTo(200);
        assertThat(post(client).status()).isEqualTo(200);

        List<ScriptedHttpServer.Request> requests = central.requests();
        assertThat(requests).extracting(ScriptedHttpServer.Request::connection).containsExactly(1, 1, 2, 2);
        assertThat(requests.get(0).clientSerial()).isEqualTo(requests.get(1).clientSerial());
        assertThat(requests.get(2).clientSerial()).isNotEqualTo(requests.get(0).clientSerial());
        assertThat(requests.get(3).clientSerial()).isEqualTo(requests.get(2).clientSerial());
    }

    @Test
    void an_interrupted_forwarder_does_not_send() throws Exception {
        ScriptedHttpServer central = server((r, out) -> ok(out, "{}"));
        BlockingIngestClient client = client(central.url("http"));

        Thread.currentThread().interrupt();
        IngestReply reply;
        try {
            reply = post(client);
        } finally {
            assertThat(Thread.interrupted()).isTrue();
        }

        assertThat(reply.transportError()).isEqualTo("interrupted (shutting down)");
        assertThat(central.requests()).isEmpty();
    }

    private static SSLContext serverTls(DevCertificates.Material ca) {
        return TlsContexts.of(
                Optional.of(ca.caFile()), Optional.of(ClientCertificate.load(ca.certFile(), ca.keyFile())));
    }

    private Path keyFile() {
        return dir.resolve("tls/bridge-key.pem");
    }

    /** Issues (again) the bridge's client certificate; the settings that present it and trust the dev CA. */
    private String[] clientCertificate(DevCertificates.Material ca, String name) {
        Path certFile = dir.resolve("tls/bridge.pem");
        DevCertificates.issueClient(
                dir.resolve("tls"),
                name,
                Instant.now().minus(Duration.ofHours(1)),
                Instant.now().plus(Duration.ofDays(1)),
                certFile,
                keyFile());
        return new String[] {
            "ingest.caFile=" + ca.caFile(), "ingest.certFile=" + certFile, "ingest.keyFile=" + keyFile()
        };
    }
}
