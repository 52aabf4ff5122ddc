package org.edgebridge.forward;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Sends request bodies to central with the JDK's HTTP client. Thread-safe. */
final class IngestClient {
    private final ForwarderSettings settings;
    private final HttpClient http;
    private final java.util.concurrent.atomic.AtomicLong pastDeadline = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong overCap = new java.util.concurrent.atomic.AtomicLong();

    IngestClient(ForwarderSettings settings) {
        this.settings = settings;
        Duration connectTimeout = settings.timeout().compareTo(Duration.ofSeconds(10)) < 0
                ? settings.timeout() : Duration.ofSeconds(10);
        HttpClient.Builder builder = HttpClient.newBuilder();
        settings.caFile().ifPresent(ca -> builder.sslContext(trusting(ca)));
        settings.proxy().ifPresent(proxy -> builder.proxy(ProxySelector.of(new InetSocketAddress(proxy.getHost(), proxy.getPort()))));
        this.http = builder
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(connectTimeout)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    /** An SSL context that trusts exactly the CA certificates in a PEM file. */
    static javax.net.ssl.SSLContext trusting(java.nio.file.Path caFile) {
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(caFile)) {
            java.security.KeyStore trust = java.security.KeyStore.getInstance(java.security.KeyStore.getDefaultType());
            trust.load(null, null);
            int i = 0;
            for (java.security.cert.Certificate c : java.security.cert.CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                trust.setCertificateEntry("ca-" + i++, c);
            }
            if (i == 0) {
                throw new IllegalStateException("ingest.caFile=" + caFile + ": no certificate in it");
            }
            javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance(
                    javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
            context.init(null, tmf.getTrustManagers(), null);
            return context;
        } catch (IOException | java.security.GeneralSecurityException e) {
            throw new IllegalStateException("ingest.caFile=" + caFile + ": cannot be used as a trust store: " + e.getMessage(), e);
        }
    }

    /**
     * One exchange with central, bounded as a whole by {@code ingest.timeout} (connect, send, headers and body: the
     * JDK's own request timeout stops at the headers, so a body that trickles in would hold the forwarder for ever)
     * and in size by {@code ingest.maxReplyBytes} ({@link CappedBody}). Past either, the exchange is cancelled (its
     * connection closed) and the request failed.
     *
     * @throws Error an Error (OutOfMemoryError) met while the reply was read: the calling worker dies of it
     */
    IngestReply post(String batchId, byte[] body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(settings.url())
                .timeout(settings.timeout())
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", batchId)
                .POST(HttpRequest.BodyPublishers.ofByteArray(settings.compression().encode(body)));
        settings.compression().contentEncoding().ifPresent(encoding -> request.header("Content-Encoding", encoding));
        settings.token().ifPresent(token -> request.header("Authorization", "Bearer " + token));
        CompletableFuture<HttpResponse<byte[]>> exchange =
                http.sendAsync(request.build(), CappedBody.handler(settings.maxReplyBytes()));
        try {
            HttpResponse<byte[]> response = exchange.get(settings.timeout().toNanos(), TimeUnit.NANOSECONDS);
            return new IngestReply(response.statusCode(), response.body(), response.headers().firstValue("Retry-After"),
                    response.headers().firstValue("Location"), null);
        } catch (TimeoutException e) {
            exchange.cancel(true);
            return pastDeadline();
        } catch (ExecutionException e) {
            return failed(e.getCause());
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
                return IngestReply.transportFailure(tooLarge.getMessage());
            }
        }
        if (cause instanceof java.net.http.HttpConnectTimeoutException) {
            return IngestReply.transportFailure(TransportFailures.describe(settings.url(), settings.proxy(), cause));
        }
        if (cause instanceof HttpTimeoutException) {
            return pastDeadline();
        }
        return IngestReply.transportFailure(TransportFailures.describe(settings.url(), settings.proxy(), cause));
    }

    private IngestReply pastDeadline() {
        pastDeadline.incrementAndGet();
        return IngestReply.timeout(settings.timeout().toMillis());
    }

    /** Replies cut off since start: {@code deadline} (past ingest.timeout), {@code too_large} (over ingest.maxReplyBytes). */
    java.util.Map<String, Long> cutReplies() {
        return java.util.Map.of("deadline", pastDeadline.get(), "too_large", overCap.get());
    }
}
