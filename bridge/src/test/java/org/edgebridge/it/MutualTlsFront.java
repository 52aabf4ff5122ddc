package org.edgebridge.it;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import org.edgebridge.forward.auth.ClientCertificate;
import org.edgebridge.forward.auth.TlsContexts;
import org.edgebridge.tls.DevCertificates;

/**
 * Central behind TLS that requires a client certificate: the JDK's HttpsServer with needClientAuth, trusting exactly
 * the dev CA (whose certificate check also refuses an expired client certificate), forwarding each request to a
 * plain-HTTP reference central and its answer back. It remembers the serial of every client certificate it admitted.
 */
final class MutualTlsFront implements AutoCloseable {
    private static final HttpClient BACKEND = HttpClient.newHttpClient();
    private final HttpsServer server;
    private final ExecutorService threads = Executors.newFixedThreadPool(4);
    private final URI backend;
    /** Serials (hex) of the client certificates of the requests admitted, in order. */
    final List<String> admittedSerials = new CopyOnWriteArrayList<>();

    /** @param material the dev CA and the server certificate for 127.0.0.1 ({@link DevCertificates#ensure}) */
    MutualTlsFront(DevCertificates.Material material, int centralPort) throws IOException {
        this.backend = URI.create("http://127.0.0.1:" + centralPort);
        SSLContext context = TlsContexts.of(
                Optional.of(material.caFile()),
                Optional.of(ClientCertificate.load(material.certFile(), material.keyFile())));
        server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(context) {
            @Override
            public void configure(HttpsParameters params) {
                SSLParameters p = context.getDefaultSSLParameters();
                p.setNeedClientAuth(true);
                params.setSSLParameters(p);
            }
        });
        server.createContext("/", this::forward);
        server.setExecutor(threads);
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    String url() {
        return "https://127.0.0.1:" + port() + "/ingest";
    }

    private void forward(HttpExchange exchange) throws IOException {
        try (exchange) {
            X509Certificate client =
                    (X509Certificate) ((HttpsExchange) exchange).getSSLSession().getPeerCertificates()[0];
            admittedSerials.add(client.getSerialNumber().toString(16).toUpperCase(java.util.Locale.ROOT));
            HttpRequest.Builder request = HttpRequest.newBuilder(backend.resolve(exchange.getRequestURI()))
                    .method(
                            exchange.getRequestMethod(),
                            HttpRequest.BodyPublishers.ofByteArray(
                                    exchange.getRequestBody().readAllBytes()));
            for (String header : List.of("Content-Type", "Content-Encoding", "Idempotency-Key", "Authorization")) {
                Optional.ofNullable(exchange.getRequestHeaders().getFirst(header))
                        .ifPresent(v -> request.header(header, v));
            }
            HttpResponse<byte[]> answer = BACKEND.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            answer.headers()
                    .firstValue("Content-Type")
                    .ifPresent(v -> exchange.getResponseHeaders().add("Content-Type", v));
            answer.headers()
                    .firstValue("Retry-After")
                    .ifPresent(v -> exchange.getResponseHeaders().add("Retry-After", v));
            exchange.sendResponseHeaders(answer.statusCode(), answer.body().length == 0 ? -1 : answer.body().length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer.body());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
