package org.edgebridge.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

/**
 * Free loopback ports for servers that must be told their port before they start. Prefer starting a listener on
 * any free port ({@code mqtt.port=any}, {@code tls.port=any}, {@code admin.port=any}, a central on port 0) and asking
 * it which one it bound ({@link TestSite}, {@link BridgeProcess}): a port picked here can be taken by someone else
 * before the server binds it. What is left here is for a server restarted on the same port.
 */
public final class Ports {
    private Ports() {}

    /**
     * A free port below the kernel's ephemeral range (which starts at 32768 by default), for a server that
     * restarts on the same port: while it is down, no outgoing connection can be given that port, as can happen
     * to a port from {@link #free()} (a client retrying against it can even connect to itself).
     */
    public static int freeOutsideEphemeralRange() {
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = 20_000 + random.nextInt(12_000);
            try (ServerSocket s = new ServerSocket(port)) {
                s.setReuseAddress(true);
                return port;
            } catch (IOException taken) {
                // try another
            }
        }
        throw new IllegalStateException("no free port between 20000 and 32000");
    }

    public static int free() {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
