package org.edgebridge.commission;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.List;
import java.util.Optional;

/**
 * What the check's steps share: a URI's port, a step's milliseconds, an exception's root message, the head of an HTTP
 * answer, and a failed step recorded as the one that stopped the way to central.
 */
final class StepHelpers {
    private static final int MAX_HEAD_BYTES = 16 * 1024;

    private StepHelpers() {}

    /** The port of {@code uri}, or its scheme's (443 for https, else 80). */
    static int port(URI uri) {
        return uri.getPort() >= 0 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
    }

    /** The message of the innermost cause, or its class's name when it has none. */
    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    }

    /** The status line and headers of an HTTP answer, up to the blank line (at most 16 KiB). */
    static String readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (head.length() < MAX_HEAD_BYTES && !head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            head.append((char) b);
        }
        return head.toString();
    }

    /** Adds {@code step} (a failed one) and returns its name, as the step that stopped the way to central. */
    static Optional<String> failed(List<CheckStep> steps, CheckStep step) {
        steps.add(step);
        return Optional.of(step.step());
    }

    /** Milliseconds since {@code startNanos} ({@link System#nanoTime()}). */
    static long since(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }
}
