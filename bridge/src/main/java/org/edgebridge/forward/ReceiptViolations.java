package org.edgebridge.forward;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.edgebridge.forward.ReceiptCheck.Problem;
import org.edgebridge.forward.ReceiptCheck.Violation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How often central broke the receipt contract since start, per {@link Violation}, and the latest time: shown on the
 * status page (alarm {@code central_receipt_violations} for {@link #ALARM_FOR} after the latest) and in /metrics. One
 * log line per reply at most, and at most one a minute: a central that breaks it on every reply cannot flood the log.
 * Thread-safe; a fixed set of counters whatever central sends.
 */
public final class ReceiptViolations {
    private static final Logger LOG = LoggerFactory.getLogger(ReceiptViolations.class);
    /** How long the alarm stays up after the latest violation. */
    static final Duration ALARM_FOR = Duration.ofMinutes(15);

    private static final Duration LOG_EVERY = Duration.ofMinutes(1);

    /** What the status page shows. @param recent whether the latest violation is less than {@link #ALARM_FOR} old */
    public record View(Map<String, Long> counts, Optional<String> last, Optional<Instant> lastAt, boolean recent) {}

    private final Clock clock;
    private final Map<Violation, AtomicLong> counts = new EnumMap<>(Violation.class);
    private volatile @Nullable String last;
    private volatile @Nullable Instant lastAt;
    private Instant loggedAt = Instant.EPOCH; // guarded by this
    private long notLogged; // guarded by this

    ReceiptViolations(Clock clock) {
        this.clock = clock;
        for (Violation v : Violation.values()) {
            counts.put(v, new AtomicLong());
        }
    }

    /** Counts the problems of one reply of {@code events} events. */
    void record(List<Problem> problems, int events) {
        if (problems.isEmpty()) {
            return;
        }
        Map<Violation, Integer> here = new EnumMap<>(Violation.class);
        problems.forEach(p -> {
            Objects.requireNonNull(counts.get(p.kind())).incrementAndGet(); // every kind has a counter
            here.merge(p.kind(), 1, Integer::sum);
        });
        Instant now = clock.instant();
        Problem first = problems.get(0);
        String what = "central broke the receipt contract in a reply for " + events + " events " + names(here)
                + ", e.g. " + first.detail() + "; events without a believable receipt are sent again, nothing of these "
                + "receipts is stored or sent to a device";
        last = what;
        lastAt = now;
        synchronized (this) {
            if (Duration.between(loggedAt, now).compareTo(LOG_EVERY) < 0) {
                notLogged++;
                return;
            }
            LOG.warn("{}{}", what, notLogged == 0 ? "" : " (" + notLogged + " more such replies since the last line)");
            loggedAt = now;
            notLogged = 0;
        }
    }

    long count(Violation v) {
        return Objects.requireNonNull(counts.get(v)).get();
    }

    View view() {
        Map<String, Long> out = new LinkedHashMap<>();
        counts.forEach((k, v) -> out.put(name(k), v.get()));
        Instant at = lastAt;
        boolean recent = at != null && Duration.between(at, clock.instant()).compareTo(ALARM_FOR) < 0;
        return new View(out, Optional.ofNullable(last), Optional.ofNullable(at), recent);
    }

    private static String names(Map<Violation, Integer> here) {
        StringBuilder b = new StringBuilder("(");
        here.forEach((k, n) -> b.append(b.length() > 1 ? ", " : "")
                .append(name(k))
                .append(": ")
                .append(n));
        return b.append(")").toString();
    }

    /** The violation's name on the status page and in /metrics: {@code not_sent}. */
    static String name(Violation v) {
        return v.name().toLowerCase(Locale.ROOT);
    }
}
