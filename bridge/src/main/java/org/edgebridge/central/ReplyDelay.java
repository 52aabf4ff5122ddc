package org.edgebridge.central;

import io.javalin.http.Context;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A central far away ({@code central-sim --delay-ms}, {@code POST /sim/reply-delay?ms=}): each {@code /ingest}
 * answer leaves this long after its request was applied. The wait holds no request thread: the answer is an async
 * result that one timer thread releases, so requests in flight together each wait their own delay side by side,
 * never one behind the other.
 */
final class ReplyDelay implements AutoCloseable {
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "central-reply-delay");
        t.setDaemon(true);
        return t;
    });
    private final AtomicLong delayed = new AtomicLong();
    private volatile long millis;

    void set(Duration delay) {
        if (delay.isNegative()) {
            throw new IllegalArgumentException("a reply delay cannot be negative: " + delay);
        }
        millis = delay.toMillis();
    }

    long millis() {
        return millis;
    }

    /** Answers sent late so far. */
    long delayedReplies() {
        return delayed.get();
    }

    /** Called once the handler has set the answer: it leaves after the delay (at once when there is none). */
    void hold(Context ctx) {
        long ms = millis;
        if (ms <= 0) {
            return;
        }
        CompletableFuture<Void> due = new CompletableFuture<>();
        timer.schedule(() -> due.complete(null), ms, TimeUnit.MILLISECONDS);
        delayed.incrementAndGet();
        ctx.future(() -> due);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
