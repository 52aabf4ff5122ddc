package org.edgebridge.commission;

import static org.edgebridge.commission.StepHelpers.port;
import static org.edgebridge.commission.StepHelpers.readHead;
import static org.edgebridge.commission.StepHelpers.since;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * The {@code proxy} step: a {@code CONNECT} tunnel to central through the site's HTTP proxy ({@code ingest.proxy}) on
 * the connection to it, and what each answer of the proxy means and what to fix. One use.
 */
final class ProxyTunnel {
    private final URI url;
    private final URI target;
    private final Deadline deadline;

    /**
     * @param url central ({@code ingest.url})
     * @param target the proxy ({@code ingest.proxy})
     */
    ProxyTunnel(URI url, URI target, Deadline deadline) {
        this.url = url;
        this.target = target;
        this.deadline = deadline;
    }

    /** {@code CONNECT host:port} through the proxy on {@code socket}, as the JDK's client sends it. */
    CheckStep open(Socket socket) {
        long start = System.nanoTime();
        String authority = url.getHost() + ":" + port(url);
        String proxy = target.getHost() + ":" + port(target);
        try {
            OutputStream out = socket.getOutputStream();
            out.write(("CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String head = readHead(socket.getInputStream());
            String statusLine = head.lines().findFirst().orElse("");
            int status = statusCode(statusLine);
            if (status == 200) {
                return CheckStep.pass(
                        "proxy",
                        "the proxy at " + proxy + " opened a tunnel to " + authority + " (" + statusLine + ")",
                        since(start));
            }
            return CheckStep.fail(
                    "proxy",
                    "the proxy at " + proxy + " answered CONNECT " + authority + " with '" + statusLine + "'"
                            + proxyReason(status),
                    proxyFix(status, authority),
                    since(start));
        } catch (SocketTimeoutException e) {
            return CheckStep.fail(
                    "proxy",
                    "the proxy at " + proxy + " did not answer CONNECT " + authority + " within " + deadline.millis()
                            + " ms",
                    "check that ingest.proxy is an HTTP proxy (not SOCKS) and its port",
                    since(start));
        } catch (IOException e) {
            return CheckStep.fail(
                    "proxy",
                    "the proxy at " + proxy + " closed the connection instead of answering CONNECT " + authority + " ("
                            + e.getMessage() + ")",
                    "check that ingest.proxy is an HTTP proxy (not SOCKS) and its port",
                    since(start));
        }
    }

    private static String proxyReason(int status) {
        return switch (status) {
            case 407 -> ": it wants a login, and the bridge sends none";
            case 403 -> ": it refuses this box, or tunnels to that port";
            case 502, 503, 504, 500 -> ": it could not reach central";
            default -> "";
        };
    }

    private static String proxyFix(int status, String authority) {
        return switch (status) {
            case 407 ->
                "ask the proxy's admin to let this box's address through without a login (the bridge has no "
                        + "proxy "
                        + "credentials)";
            case 403 ->
                "ask the proxy's admin to allow this box CONNECT to " + authority
                        + " (a port other than 443 is "
                        + "often refused)";
            case 502, 503, 504, 500 ->
                "check central's host and port in ingest.url (the proxy resolves and connects "
                        + "to "
                        + "them) and that central runs; the proxy's log says more";
            default -> "check ingest.proxy: it must be the site's HTTP proxy (host and port)";
        };
    }

    private static int statusCode(String statusLine) {
        String[] parts = statusLine.split(" ");
        try {
            return parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
