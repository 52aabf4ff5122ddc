package org.edgebridge.broker;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;

/**
 * Log lines about what a client did wrong (a refused CONNECT, a denied PUBLISH), safe against the client.
 *
 * <p>Everything a client sent is {@link #quote quoted}: control characters are escaped and long values cut, so a
 * client id cannot forge log lines. At most one line per kind and client id per interval is written; the next one
 * says how many were left out. Thread-safe; never blocks.
 */
public final class RefusalLog {
    private static final int MAX_QUOTED_CHARS = 160;
    private static final int MAX_TRACKED = 10_000;

    private final Logger log;
    private final Clock clock;
    private final long intervalMillis;
    private final ConcurrentMap<String, Window> windows = new ConcurrentHashMap<>();

    private record Window(long startMillis, int suppressed) {}

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

    private String admit(String kind, String clientId, String message) {
        long now = clock.millis();
        if (windows.size() > MAX_TRACKED) {
            windows.values().removeIf(w -> now - w.startMillis() >= intervalMillis);
        }
        String key = kind + '\u0000' + clientId;
        int[] left = {-1};
        windows.compute(key, (k, w) -> {
            if (w == null || now - w.startMillis() >= intervalMillis) {
                left[0] = w == null ? 0 : w.suppressed();
                return new Window(now, 0);
            }
            return new Window(w.startMillis(), w.suppressed() + 1);
        });
        if (left[0] < 0) {
            return null;
        }
        return left[0] == 0 ? message : message + " (" + left[0] + " more like it in the last " + intervalMillis / 1000 + " s)";
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
            } else if (Character.isISOControl(c) || Character.getType(c) == Character.FORMAT
                    || Character.getType(c) == Character.LINE_SEPARATOR || Character.getType(c) == Character.PARAGRAPH_SEPARATOR) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
            shown++;
        }
        return out.append('\'').toString();
    }
}
