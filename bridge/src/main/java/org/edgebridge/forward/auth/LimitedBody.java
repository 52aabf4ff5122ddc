package org.edgebridge.forward.auth;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import org.jspecify.annotations.Nullable;

/**
 * A reply body of at most {@code maxBytes} (what JDK 25's {@code BodyHandlers.limiting} does): the JDK's byte-array
 * subscriber, fed until the cap; one byte more cancels the read (the client closes the connection) and fails the
 * body with {@link TooLong}. Together with a deadline on the whole exchange this bounds a reply in time and memory,
 * however slowly or long it comes. One instance per response.
 */
final class LimitedBody implements HttpResponse.BodySubscriber<byte[]> {
    /** The reply was longer than the cap. */
    static final class TooLong extends IOException {
        TooLong(long maxBytes) {
            super("the reply is longer than " + maxBytes + " bytes; the rest was not read");
        }
    }

    private final HttpResponse.BodySubscriber<byte[]> bytes = HttpResponse.BodySubscribers.ofByteArray();
    private final CompletableFuture<byte[]> body = new CompletableFuture<>();
    private final long maxBytes;
    private long read;
    private Flow.@Nullable Subscription subscription;

    private LimitedBody(long maxBytes) {
        this.maxBytes = maxBytes;
        bytes.getBody().whenComplete((b, e) -> {
            if (e != null) {
                body.completeExceptionally(e);
            } else {
                body.complete(b);
            }
        });
    }

    static HttpResponse.BodyHandler<byte[]> handler(long maxBytes) {
        return info -> new LimitedBody(maxBytes);
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        bytes.onSubscribe(s);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
        if (body.isDone()) {
            return;
        }
        for (ByteBuffer b : items) {
            read += b.remaining();
        }
        if (read > maxBytes) {
            Flow.Subscription s = subscription;
            if (s != null) {
                s.cancel();
            }
            body.completeExceptionally(new TooLong(maxBytes));
            return;
        }
        bytes.onNext(items);
    }

    @Override
    public void onError(Throwable t) {
        bytes.onError(t);
    }

    @Override
    public void onComplete() {
        bytes.onComplete();
    }

    @Override
    public CompletionStage<byte[]> getBody() {
        return body;
    }
}
