package org.edgebridge.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

/** Free loopback ports for servers that must be told their port before they start. */
public final class Ports {
    private Ports() {}

    public static int free() {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
