package org.edgebridge.commission;

import static org.edgebridge.commission.StepHelpers.failed;
import static org.edgebridge.commission.StepHelpers.port;
import static org.edgebridge.commission.StepHelpers.since;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.edgebridge.forward.ForwarderSettings;
import org.edgebridge.forward.auth.ClientCertificate;

/**
 * The steps of the way to central up to a TLS session, on one socket as the forwarder's client would open it: the
 * name lookup ({@code dns}), the connection ({@code tcp}), the proxy's tunnel ({@code proxy}), the handshake
 * ({@code tls}) and whether central takes the client certificate ({@code client-certificate}). Each step names the
 * key to change. One use.
 *
 * <p>The name lookup and the connection are here; the tunnel is {@link ProxyTunnel}'s, the handshake and the client
 * certificate {@link TlsHandshake}'s.
 */
final class ConnectionSteps {
    private final ForwarderSettings settings;
    private final Deadline deadline;
    private final URI url;
    private final boolean https;
    private final String key;
    private final String role;
    private final URI target;
    private final TlsHandshake handshake;

    ConnectionSteps(ForwarderSettings settings, Deadline deadline, Clock clock) {
        this.settings = settings;
        this.deadline = deadline;
        this.url = settings.central().url();
        this.https = "https".equalsIgnoreCase(url.getScheme());
        this.key = settings.central().proxy().isPresent() ? "ingest.proxy" : "ingest.url";
        this.role = settings.central().proxy().isPresent() ? "the proxy (ingest.proxy)" : "central (ingest.url)";
        this.target = settings.central().proxy().orElse(url);
        this.handshake = new TlsHandshake(settings, deadline, clock);
    }

    /** Runs the steps into {@code steps}; returns the name of the step that failed, if one did. */
    Optional<String> run(List<CheckStep> steps, Optional<ClientCertificate> certificate) {
        String host = String.valueOf(target.getHost());
        int port = port(target);
        long start = System.nanoTime();
        InetAddress[] addresses;
        try {
            addresses = deadline.resolve(host);
        } catch (UnknownHostException e) {
            return failed(
                    steps,
                    CheckStep.fail(
                            "dns",
                            host + " does not resolve: the name of " + role + " has no address (" + e.getMessage()
                                    + ")",
                            "check the host name in " + key + " for a typo, and the box's DNS servers "
                                    + "(/etc/resolv.conf; 'getent hosts " + host + "' must print an address)",
                            since(start)));
        } catch (TimeoutException e) {
            return failed(
                    steps,
                    CheckStep.fail(
                            "dns",
                            "the name " + host + " of " + role + " got no answer within " + deadline.millis() + " ms",
                            "check the box's DNS servers (/etc/resolv.conf) and that DNS (port 53) "
                                    + "may leave the site",
                            since(start)));
        }
        steps.add(CheckStep.pass(
                "dns",
                host + " resolves to "
                        + Arrays.stream(addresses)
                                .map(InetAddress::getHostAddress)
                                .collect(Collectors.joining(", "))
                        + (settings.central().proxy().isPresent()
                                ? "; central (" + url.getHost() + ") is resolved and reached by the proxy"
                                : ""),
                since(start)));

        start = System.nanoTime();
        Socket socket;
        try {
            socket = connect(addresses, port);
        } catch (IOException e) {
            return failed(steps, tcpFailure(host, port, e, since(start)));
        }
        steps.add(CheckStep.pass(
                "tcp",
                "connected to " + role + " at " + host + ":" + port + " ("
                        + socket.getInetAddress().getHostAddress() + ")",
                since(start)));
        try (Socket open = socket) {
            return throughTheSocket(open, steps, certificate);
        } catch (IOException e) {
            return Optional.empty(); // closing failed: the steps are done
        }
    }

    private Optional<String> throughTheSocket(
            Socket socket, List<CheckStep> steps, Optional<ClientCertificate> certificate) {
        if (settings.central().proxy().isEmpty()) {
            steps.add(CheckStep.skip("proxy", "no ingest.proxy: the connection to central is direct"));
        } else if (!https) {
            steps.add(CheckStep.skip(
                    "proxy",
                    "http:// central: requests go to the proxy as plain HTTP, no CONNECT (the "
                            + "request step checks the proxy)"));
        } else {
            CheckStep tunnel = new ProxyTunnel(url, target, deadline).open(socket);
            steps.add(tunnel);
            if (tunnel.failed()) {
                return Optional.of("proxy");
            }
        }
        if (!https) {
            steps.add(CheckStep.skip(
                    "tls",
                    "http:// central: no TLS (anyone on the way can read the commands; use "
                            + "https:// where central offers it)"));
            steps.add(CheckStep.skip(
                    "client-certificate",
                    settings.credentials().clientCertificate().isPresent()
                            ? "http:// central: ingest.certFile is not used"
                            : "http:// central: no TLS, no client certificate"));
            return Optional.empty();
        }
        return handshake.run(socket, steps, certificate);
    }

    private Socket connect(InetAddress[] addresses, int port) throws IOException {
        IOException last = new IOException("no address");
        for (InetAddress a : addresses) {
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(a, port), deadline.millis());
                s.setSoTimeout(deadline.millis());
                return s;
            } catch (IOException e) {
                s.close();
                last = e;
            }
        }
        throw last;
    }

    private CheckStep tcpFailure(String host, int port, IOException e, long millis) {
        String where = role + " at " + host + ":" + port;
        if (e instanceof ConnectException) {
            return CheckStep.fail(
                    "tcp",
                    "nothing accepts connections at " + where + " (" + e.getMessage() + ")",
                    "check the port in " + key + " and that " + role + " runs there; a firewall may refuse it too",
                    millis);
        }
        if (e instanceof SocketTimeoutException) {
            return CheckStep.fail(
                    "tcp",
                    "no answer from " + where + " within " + deadline.millis()
                            + " ms: the packets are dropped on the way",
                    "check the firewalls between this box and " + role
                            + " (outbound TCP to port "
                            + port + ") and the address in " + key,
                    millis);
        }
        if (e instanceof NoRouteToHostException) {
            return CheckStep.fail(
                    "tcp",
                    "no route to " + where,
                    "check the box's network: its address, default route and VLAN",
                    millis);
        }
        return CheckStep.fail(
                "tcp", "cannot connect to " + where + ": " + e, "check " + key + " and the network", millis);
    }
}
