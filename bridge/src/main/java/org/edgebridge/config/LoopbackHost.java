package org.edgebridge.config;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** Whether a configured host stays on this machine: {@code localhost} or a loopback address literal. */
final class LoopbackHost {
    private LoopbackHost() {}

    /** Any other name counts as remote (no DNS lookup); so does {@code 0.0.0.0}, which binds every address. */
    static boolean is(String host) {
        if (host == null) {
            return false;
        }
        if ("localhost".equalsIgnoreCase(host)) {
            return true;
        }
        String literal = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        if (!literal.contains(":") && !literal.matches("[0-9.]+")) {
            return false;
        }
        try {
            return InetAddress.getByName(literal).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
