package org.edgebridge.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * An OAuth2 token endpoint made of bytes on sockets: while {@link #trickle} is on it answers each request with its
 * status line and headers (a 200 with a Content-Length of 1,000) and then one body byte every 5 s, as a hostile or
 * half-dead endpoint (or a WAN that dropped the flow mid-body) would; otherwise it answers at once with
 * {@value #TOKEN}. TCP_NODELAY on every connection.
 */
final class TricklingTokenEndpoint implements AutoCloseable {
    static final String TOKEN = "trickle-token-1";

    private final ServerSocket server;
    private final ScheduledExecutorService bytes = Executors.newSingleThreadScheduledExecutor();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Thread acceptor;
    private volatile boolean trickle = true;
    final java.util.concurrent.atomic.AtomicInteger requests = new java.util.concurrent.atomic.AtomicInteger();

    TricklingTokenEndpoint() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = new Thread(this::accept, "trickling-token-endpoint");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getLocalPort() + "/oauth2/token";
    }

    /** From now on every request is answered at once with a good token. */
    void answerNormally() {
        trickle = false;
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                s.setTcpNoDelay(true);
                sockets.add(s);
                Thread t = new Thread(() -> serve(s), "trickling-token-connection");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket s) {
        try {
            InputStream in = s.getInputStream();
            while (true) {
                int length = readHeadersForContentLength(in);
                if (length < 0) {
                    return;
                }
                in.readNBytes(length);
                requests.incrementAndGet();
                OutputStream out = s.getOutputStream();
                if (trickle) {
                    out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    bytes.scheduleAtFixedRate(
                            () -> {
                                try {
                                    out.write(' ');
                                    out.flush();
                                } catch (IOException closed) {
                                    throw new IllegalStateException(closed); // ends this schedule
                                }
                            },
                            5,
                            5,
                            TimeUnit.SECONDS);
                    return;
                }
                byte[] body = ("{\"access_token\":\"" + TOKEN + "\",\"token_type\":\"Bearer\",\"expires_in\":3600}")
                        .getBytes(StandardCharsets.US_ASCII);
                out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + body.length
                                + "\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.write(body);
                out.flush();
            }
        } catch (IOException e) {
            // the bridge closed the connection
        }
    }

    /** Reads a request's headers. @return its Content-Length (0 without one), or -1 at the end of the stream */
    private static int readHeadersForContentLength(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                return -1;
            }
            head.append((char) b);
        }
        for (String line : head.toString().split("\r\n")) {
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                return Integer.parseInt(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return 0;
    }

    @Override
    public void close() throws IOException {
        server.close();
        bytes.shutdownNow();
        for (Socket s : sockets) {
            s.close();
        }
    }
}
