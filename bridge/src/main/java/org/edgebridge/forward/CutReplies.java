package org.edgebridge.forward;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Replies of central cut off since start, and the transport failures they are: {@code deadline} (the exchange was not
 * done within {@code ingest.timeout}) and {@code too_large} (a body over {@code ingest.maxReplyBytes}). Thread-safe.
 */
final class CutReplies {
    private final Duration timeout;
    private final AtomicLong pastDeadline = new AtomicLong();
    private final AtomicLong overCap = new AtomicLong();

    CutReplies(Duration timeout) {
        this.timeout = timeout;
    }

    /** An exchange cut at its deadline: counted, and the timeout it is. */
    IngestReply pastDeadline() {
        pastDeadline.incrementAndGet();
        return IngestReply.timeout(timeout.toMillis());
    }

    /** A reply body cut at the cap: counted, and the failure it is ({@code why}: {@link CappedBody}'s words). */
    IngestReply tooLarge(String why) {
        overCap.incrementAndGet();
        return IngestReply.transportFailure(why);
    }

    /** {@code deadline} and {@code too_large}: the replies cut since start. */
    Map<String, Long> counts() {
        return Map.of("deadline", pastDeadline.get(), "too_large", overCap.get());
    }
}
