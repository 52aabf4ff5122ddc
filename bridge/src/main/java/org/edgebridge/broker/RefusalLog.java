package org.edgebridge.broker;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

/**
 * Log lines about what a client did wrong (a refused CONNECT, a denied PUBLISH), safe against the client.
 *
 * <p>Everything a client sent is {@link #quote quoted}: control characters are escaped and long values cut, so a
 * client id cannot forge log lines. At most one line per kind and client id per interval is written, and at most
 * {@link #LINES_PER_KIND} lines per kind per interval in total, whatever the client ids (15,000 refused CONNECTs
 * with random ids wrote 15,000 lines before); the next line of that client id, or of that kind, says how many were
 * left out. Thread-safe; never blocks. The windows it keeps are bounded by the lines it writes.
 */
public final class RefusalLog {
    private static final int MAX_QUOTED_CHARS = 160;
    private static final int MAX_TRACKED = 10_000;
    /** Lines of one kind (all client ids together) per interval. */
    static final int LINES_PER_KIND = 10;

    private final Logger log;
    private final Clock clock;
    private final long intervalMillis;
    private final ConcurrentMap<String, Window> windows = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, KindWindow> kinds = new ConcurrentHashMap<>();
    private final AtomicLong leftOut = new AtomicLong();

    private record Window(long startMillis, int suppressed) {}

    private record KindWindow(long startMillis, int lines, int suppressed) {}

    RefusalLog(Logger log, Clock clock, Duration interval) {
        this.log = log;
        this.clock = clock;
        this.intervalMillis = interval.toMillis();
    }

    /** Logs at INFO unless a line of this kind about this client was logged within the interval. */
    public void info(String kind, String clientId, String message) {
        String line = admit(kind, clientId, message);
        if (line != null) {
            log.info(line);
        }
    }

    /** Logs at WARN unless a line of this kind about this client was logged within the interval. */
    public void warn(String kind, String clientId, String message) {
        String line = admit(kind, clientId, message);
        if (line != null) {
            log.warn(line);
        }
    }

    /** Lines left out since start, by either limit. */
    public long leftOut() {
        return leftOut.get();
    }

    private @Nullable String admit(String kind, String clientId, String message) {
        long now = clock.millis();
        if (windows.size() > MAX_TRACKED) {
            windows.values().removeIf(w -> now - w.startMillis() >= intervalMillis);
        }
        String key = kind + '\u0000' + clientId;
        Window mine = windows.computeIfPresent(
                key,
                (k, w) -> now - w.startMillis() < intervalMillis ? new Window(w.startMillis(), w.suppressed() + 1) : w);
        if (mine != null && now - mine.startMillis() < intervalMillis) {
            leftOut.incrementAndGet();
            return null;
        }
        int[] kindLeftOut = {-1};
        kinds.compute(kind, (k, w) -> {
            if (w == null || now - w.startMillis() >= intervalMillis) {
                kindLeftOut[0] = w == null ? 0 : w.suppressed();
                return new KindWindow(now, 1, 0);
            }
            if (w.lines() < LINES_PER_KIND) {
                kindLeftOut[0] = 0;
                return new KindWindow(w.startMillis(), w.lines() + 1, w.suppressed());
            }
            return new KindWindow(w.startMillis(), w.lines(), w.suppressed() + 1);
        });
        if (kindLeftOut[0] < 0) {
            leftOut.incrementAndGet();
            return null;
        }
        windows.put(key, new Window(now, 0));
        int mineLeftOut = mine == null ? 0 : mine.suppressed();
        long seconds = intervalMillis / 1000;
        String line = mineLeftOut == 0
                ? message
                : message + " (" + mineLeftOut + " more like it in the last " + seconds + " s)";
        return kindLeftOut[0] == 0
                ? line
                : line + " (and " + kindLeftOut[0] + " lines of kind " + kind
                        + " about other clients left out in the last " + seconds + " s)";
    }

    /**
     * A value a client sent, fit for a log line: in single quotes, control and other invisible characters as
     * {@code \}{@code uXXXX}, a quote as {@code \'}, at most 160 characters (then {@code …}); null as {@code null}.
     */
    public static String quote(String untrusted) {
        if (untrusted == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder(Math.min(untrusted.length(), MAX_QUOTED_CHARS) + 2).append('\'');
        int shown = 0;
        for (int i = 0; i < untrusted.length(); i++) {
            if (shown == MAX_QUOTED_CHARS) {
                out.append('…');
                break;
            }
            char c = untrusted.charAt(i);
            if (c == '\'' || c == '\\') {
                out.append('\\').append(c);
            } else if (Character.isISOControl(c)
                    || Character.getType(c) == Character.FORMAT
                    || Character.getType(c) == Character.LINE_SEPARATOR
                    || Character.getType(c) == Character.PARAGRAPH_SEPARATOR) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
            shown++;
        }
        return out.append('\'').toString();
    }
}
