package org.edgebridge.forward;

import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.edgebridge.forward.auth.ClientCertificate;
import org.edgebridge.forward.auth.ClientCertificateFiles;
import org.edgebridge.forward.auth.TlsContexts;
import org.jspecify.annotations.Nullable;

/**
 * Sends request bodies to central with the JDK's HTTP client. With a client certificate ({@code ingest.certFile}), the
 * files are looked at before each request ({@link ClientCertificateFiles#current()}) and a pair rotated on disk gets a
 * new HTTP client: a new TLS context, no pooled connection or resumable session of the old certificate. Thread-safe.
 */
final class IngestClient implements IngestPort {
    private final ForwarderSettings settings;
    private final Optional<ClientCertificateFiles> certificates;
    private volatile Connection connection;
    private final AtomicLong pastDeadline = new AtomicLong();
    private final AtomicLong overCap = new AtomicLong();
    private final WireBytes wire;

    /** An HTTP client and the client certificate its TLS context presents (null: none). */
    private record Connection(HttpClient http, @Nullable ClientCertificate presented) {}

    IngestClient(ForwarderSettings settings, Optional<ClientCertificateFiles> certificates) {
        this.settings = settings;
        this.certificates = certificates;
        this.wire =
                new WireBytes("https".equalsIgnoreCase(settings.central().url().getScheme()));
        this.connection =
                connect(certificates.map(ClientCertificateFiles::current).orElse(null));
    }

    private Connection connect(@Nullable ClientCertificate certificate) {
        Duration connectTimeout = settings.requests().timeout().compareTo(Duration.ofSeconds(10)) < 0
                ? settings.requests().timeout()
                : Duration.ofSeconds(10);
        HttpClient.Builder builder = HttpClient.newBuilder();
        if (settings.credentials().caFile().isPresent() || certificate != null) {
            builder.sslContext(TlsContexts.of(settings.credentials().caFile(), Optional.ofNullable(certificate)));
        }
        settings.central()
                .proxy()
                .ifPresent(proxy ->
                        builder.proxy(ProxySelector.of(new InetSocketAddress(proxy.getHost(), proxy.getPort()))));
        return new Connection(
                builder.version(HttpClient.Version.HTTP_1_1)
                        .connectTimeout(connectTimeout)
                        .followRedirects(HttpClient.Redirect.NEVER)
                        .build(),
                certificate);
    }

    /** The HTTP client for the next request: a new one when the client certificate on disk changed. */
    HttpClient http() {
        Connection now = connection;
        if (certificates.isEmpty()) {
            return now.http();
        }
        ClientCertificate onDisk = certificates.get().current();
        if (onDisk == now.presented()) {
            return now.http();
        }
        synchronized (this) {
            if (connection.presented() != onDisk) {
                connection = connect(onDisk);
            }
            return connection.http();
        }
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
        byte[] onTheWire = settings.central().compression().encode(body);
        HttpRequest.Builder request = HttpRequest.newBuilder(settings.central().url())
                .timeout(settings.requests().timeout())
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", batchId)
                .POST(HttpRequest.BodyPublishers.ofByteArray(onTheWire));
        settings.central()
                .compression()
                .contentEncoding()
                .ifPresent(encoding -> request.header("Content-Encoding", encoding));
        bearer.ifPresent(token -> request.header("Authorization", "Bearer " + token));
        HttpRequest built = request.build();
        wire.sent(
                ("POST " + settings.central().url().getRawPath() + " HTTP/1.1\r\n").length()
                        + WireBytes.headBytes(built.headers()),
                body.length,
                onTheWire.length);
        CompletableFuture<HttpResponse<byte[]>> exchange = http().sendAsync(
                        built,
                        CappedBody.handler(settings.requests().maxReplyBytes().intBytes()));
        try {
            HttpResponse<byte[]> response =
                    exchange.get(settings.requests().timeout().toNanos(), TimeUnit.NANOSECONDS);
            wire.received(response.headers(), response.body().length);
            return new IngestReply(
                    response.statusCode(),
                    response.body(),
                    response.headers().firstValue("Retry-After"),
                    response.headers().firstValue("Location"),
                    null);
        } catch (TimeoutException e) {
            exchange.cancel(true);
            return pastDeadline();
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
                overCap.incrementAndGet();
                return IngestReply.transportFailure(Objects.requireNonNull(tooLarge.getMessage())); // made with one
            }
        }
        if (cause instanceof HttpConnectTimeoutException) {
            return IngestReply.transportFailure(TransportFailures.describe(
                    settings.central().url(), settings.central().proxy(), cause));
        }
        if (cause instanceof HttpTimeoutException) {
            return pastDeadline();
        }
        return IngestReply.transportFailure(expiredCertificate()
                .map(c -> TransportFailures.expiredClientCertificate(
                        settings.central().url(),
                        c.notAfter(),
                        c.serial(),
                        TransportFailures.describe(
                                settings.central().url(), settings.central().proxy(), cause)))
                .orElseGet(() -> TransportFailures.describe(
                        settings.central().url(), settings.central().proxy(), cause)));
    }

    /**
     * The client certificate presented, when it has expired: with TLS 1.3 a server checks it after the client's
     * handshake is done, and its refusal often reaches the client as a reset or closed connection; the bridge knows
     * better than that.
     */
    private Optional<ClientCertificate> expiredCertificate() {
        ClientCertificate presented = connection.presented();
        return presented != null && certificates.get().expired(presented) ? Optional.of(presented) : Optional.empty();
    }

    private IngestReply pastDeadline() {
        pastDeadline.incrementAndGet();
        return IngestReply.timeout(settings.requests().timeout().toMillis());
    }

    /** The bytes exchanged with central since start (the data budget's source). */
    WireBytes wire() {
        return wire;
    }

    /**
     * Replies cut off since start: {@code deadline} (past ingest.timeout), {@code too_large} (over
     * ingest.maxReplyBytes).
     */
    Map<String, Long> cutReplies() {
        return Map.of("deadline", pastDeadline.get(), "too_large", overCap.get());
    }
}
