package org.edgebridge.forward;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import org.jspecify.annotations.Nullable;

/**
 * Reads a reply body into memory, at most {@code maxBytes} of it: a longer body (declared by {@code Content-Length}
 * or found while reading) ends the read at once, cancels the subscription (the JDK's client closes the connection)
 * and fails the body with {@link TooLarge}. Nothing past the cap is kept. One instance per response.
 */
final class CappedBody implements HttpResponse.BodySubscriber<byte[]> {
    /** The reply body is longer than {@code ingest.maxReplyBytes}. */
    static final class TooLarge extends IOException {
        TooLarge(String message) {
            super(message);
        }
    }

    private final int maxBytes;
    private final long declaredBytes;
    private final CompletableFuture<byte[]> body = new CompletableFuture<>();
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private Flow.@Nullable Subscription subscription; // set by onSubscribe, before any other call (Flow's contract)

    /** @param declaredBytes the reply's {@code Content-Length}, or -1 */
    CappedBody(int maxBytes, long declaredBytes) {
        this.maxBytes = maxBytes;
        this.declaredBytes = declaredBytes;
    }

    /** Why a reply whose {@code Content-Length} is over the cap was not read. */
    static String declaredTooLarge(long declaredBytes, int maxBytes) {
        return "central's reply declares " + declaredBytes + " bytes (Content-Length), more than ingest.maxReplyBytes ("
                + maxBytes + "); not read";
    }

    /** Why a reply found longer than the cap while it was read was cut. */
    static String readTooLarge(int maxBytes) {
        return "central's reply is longer than ingest.maxReplyBytes (" + maxBytes + " bytes); the rest was not read";
    }

    /** A body handler that caps every body at {@code maxBytes}. */
    static HttpResponse.BodyHandler<byte[]> handler(int maxBytes) {
        return info -> new CappedBody(
                maxBytes, info.headers().firstValueAsLong("Content-Length").orElse(-1));
    }

    @Override
    public CompletionStage<byte[]> getBody() {
        return body;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        if (declaredBytes > maxBytes) {
            fail(declaredTooLarge(declaredBytes, maxBytes));
            return;
        }
        s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
        if (body.isDone()) {
            return;
        }
        try {
            for (ByteBuffer b : buffers) {
                if ((long) bytes.size() + b.remaining() > maxBytes) {
                    fail(readTooLarge(maxBytes));
                    return;
                }
                byte[] chunk = new byte[b.remaining()];
                b.get(chunk);
                bytes.write(chunk, 0, chunk.length);
            }
        } catch (Throwable t) { // an OutOfMemoryError here must reach the forwarder's thread, which dies of it
            cancel();
            body.completeExceptionally(t);
        }
    }

    private void fail(String why) {
        cancel();
        body.completeExceptionally(new TooLarge(why));
    }

    private void cancel() {
        Flow.Subscription s = subscription;
        if (s != null) {
            s.cancel();
        }
    }

    @Override
    public void onError(Throwable t) {
        body.completeExceptionally(t);
    }

    @Override
    public void onComplete() {
        body.complete(bytes.toByteArray());
    }
}
