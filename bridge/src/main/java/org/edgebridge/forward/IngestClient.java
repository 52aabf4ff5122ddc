package org.edgebridge.forward;

import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.edgebridge.forward.auth.ClientCertificate;
import org.edgebridge.forward.auth.ClientCertificateFiles;
import org.edgebridge.forward.auth.TlsContexts;

/**
 * Sends request bodies to central with the JDK's HTTP client ({@code ingest.client=jdk}, the default), which hands each
 * exchange to its selector and worker threads. With a client certificate ({@code ingest.certFile}), a pair rotated
 * on disk gets a new HTTP client ({@link CertificateBound}). Thread-safe.
 */
final class IngestClient implements CentralClient {
    private final ForwarderSettings settings;
    private final CertificateBound<HttpClient> clients;
    private final CutReplies cuts;
    private final WireBytes wire;

    IngestClient(ForwarderSettings settings, Optional<ClientCertificateFiles> certificates) {
        this.settings = settings;
        this.clients = clients(settings, certificates);
        this.cuts = new CutReplies(settings.requests().timeout());
        this.wire =
                new WireBytes("https".equalsIgnoreCase(settings.central().url().getScheme()));
        clients.get(); // a TLS context that cannot be made fails the start, not the first request
    }

    /**
     * JDK HTTP clients as the requests to central use them (proxy, trust, client certificate, connect timeout, HTTP/1.1,
     * no redirects), made at the first use: the token endpoint's with {@code ingest.client=blocking}.
     */
    static CertificateBound<HttpClient> clients(
            ForwarderSettings settings, Optional<ClientCertificateFiles> certificates) {
        return new CertificateBound<>(certificates, certificate -> connect(settings, certificate));
    }

    private static HttpClient connect(ForwarderSettings settings, Optional<ClientCertificate> certificate) {
        HttpClient.Builder builder = HttpClient.newBuilder();
        if (settings.credentials().caFile().isPresent() || certificate.isPresent()) {
            builder.sslContext(TlsContexts.of(settings.credentials().caFile(), certificate));
        }
        settings.central()
                .proxy()
                .ifPresent(proxy ->
                        builder.proxy(ProxySelector.of(new InetSocketAddress(proxy.getHost(), proxy.getPort()))));
        return builder.version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(settings.requests().connectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    /** The HTTP client for the next request: a new one when the client certificate on disk changed. */
    HttpClient http() {
        return clients.get();
    }

    /** Its HTTP clients, for the token endpoint. */
    CertificateBound<HttpClient> clients() {
        return clients;
    }

    /**
     * One exchange with central, bounded as a whole by {@code ingest.timeout} (connect, send, headers and body: the
     * JDK's own request timeout stops at the headers, so a body that trickles in would hold the forwarder for ever)
     * and in size by {@code ingest.maxReplyBytes} ({@link CappedBody}). Past either, the exchange is cancelled (its
     * connection closed) and the request failed.
     *
     * @param bearer the token for {@code Authorization: Bearer}, if any ({@link CentralAuthorization})
     * @throws Error an Error (OutOfMemoryError) met while the reply was read: the calling worker dies of it
     */
    @Override
    public IngestReply post(String batchId, byte[] body, Optional<String> bearer) {
        CentralPost post = CentralPost.of(settings.central(), batchId, body, bearer, wire);
        HttpRequest.Builder request = HttpRequest.newBuilder(settings.central().url())
                .timeout(settings.requests().timeout())
                .POST(HttpRequest.BodyPublishers.ofByteArray(post.onTheWire()));
        post.headers().forEach(request::header);
        CompletableFuture<HttpResponse<byte[]>> exchange = http().sendAsync(
                        request.build(),
                        CappedBody.handler(settings.requests().maxReplyBytes().intBytes()));
        try {
            HttpResponse<byte[]> response =
                    exchange.get(settings.requests().timeout().toNanos(), TimeUnit.NANOSECONDS);
            wire.received(response.headers().map(), response.body().length);
            return new IngestReply(
                    response.statusCode(),
                    response.body(),
                    response.headers().firstValue("Retry-After"),
                    response.headers().firstValue("Location"),
                    null);
        } catch (TimeoutException e) {
            exchange.cancel(true);
            return cuts.pastDeadline();
        } catch (ExecutionException e) {
            return failed(Objects.requireNonNull(e.getCause())); // CompletableFuture's ExecutionException has one
        } catch (InterruptedException e) {
            exchange.cancel(true);
            Thread.currentThread().interrupt();
            return IngestReply.transportFailure("interrupted (shutting down)");
        }
    }

    private IngestReply failed(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof Error error) {
                throw error;
            }
            if (t instanceof CappedBody.TooLarge tooLarge) {
                return cuts.tooLarge(Objects.requireNonNull(tooLarge.getMessage())); // made with one
            }
        }
        if (cause instanceof HttpConnectTimeoutException) {
            return IngestReply.transportFailure(TransportFailures.describe(
                    settings.central().url(), settings.central().proxy(), cause));
        }
        if (cause instanceof HttpTimeoutException) {
            return cuts.pastDeadline();
        }
        return IngestReply.transportFailure(
                TransportFailures.ofExchange(settings.central(), clients.expiredPresented(), cause));
    }

    @Override
    public WireBytes wire() {
        return wire;
    }

    @Override
    public Map<String, Long> cutReplies() {
        return cuts.counts();
    }

    /** Nothing to stop: the JDK's client ends its threads when it is no longer referenced. */
    @Override
    public void close() {}
}
