package org.edgebridge.admin;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The {@code Host} names the admin API answers reads without a token for: {@code localhost}, {@code 127.0.0.1},
 * {@code [::1]} and {@code admin.host} itself, each with any port (an SSH tunnel may forward another local port).
 * A browser sends the name it looked up, so a web page that rebinds its own name to 127.0.0.1 (DNS rebinding) sends
 * that name and is refused. A request without a {@code Host} (HTTP/1.0, never a browser) passes.
 */
final class AdminHosts {
    private final Set<String> allowed;

    AdminHosts(String adminHost) {
        this.allowed = Set.copyOf(List.of("localhost", "127.0.0.1", "::1", bare(adminHost.toLowerCase(Locale.ROOT))));
    }

    boolean allows(@Nullable String host) {
        return host == null || allowed.contains(bare(withoutPort(host.trim().toLowerCase(Locale.ROOT))));
    }

    /**
     * The name of a {@code Host} header without its port: {@code [::1]:8080} is {@code [::1]}, {@code a:1} is {@code
     * a}.
     */
    private static String withoutPort(String host) {
        if (host.startsWith("[")) {
            int end = host.indexOf(']');
            return end < 0 ? host : host.substring(0, end + 1);
        }
        int colon = host.indexOf(':');
        return colon >= 0 && colon == host.lastIndexOf(':') ? host.substring(0, colon) : host;
    }

    private static String bare(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    /** A Host header as it may be shown in a message: at most 100 characters, printable ASCII. */
    static String shown(@Nullable String host) {
        if (host == null) {
            return "(none)";
        }
        String cut = host.length() > 100 ? host.substring(0, 100) + "…" : host;
        return "'" + cut.replaceAll("[^\\x20-\\x7e…]", "?") + "'";
    }
}
