package org.edgebridge.forward;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.jspecify.annotations.Nullable;

/**
 * An HTTP/1.1 server on a raw socket (TCP_NODELAY), plain or TLS, whose answers a test scripts byte by byte: it reads
 * each request (head and Content-Length body), records it with the connection it came on, and hands the socket's
 * output to the script, which may answer, trickle, stall or close. Connections are kept alive while the script
 * says so.
 */
final class ScriptedHttpServer implements AutoCloseable {
    /** A request as received: the connection it came on (1, 2, …), its head lines, headers and body. */
    record Request(
            int connection,
            String requestLine,
            Map<String, String> headers,
            byte[] body,
            @Nullable String clientSerial) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    /** Answers one request. @return whether to read another request on this connection */
    @FunctionalInterface
    interface Script {
        boolean answer(Request request, OutputStream out) throws Exception;
    }

    private final ServerSocket server;
    private final Script script;
    private final AtomicInteger connections = new AtomicInteger();
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    /** @param tls a server TLS context (client certificate required), or null for plain HTTP */
    ScriptedHttpServer(@Nullable SSLContext tls, Script script) throws IOException {
        this.script = script;
        if (tls == null) {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } else {
            SSLServerSocket s = (SSLServerSocket)
                    tls.getServerSocketFactory().createServerSocket(0, 50, InetAddress.getLoopbackAddress());
            s.setNeedClientAuth(true);
            server = s;
        }
        acceptor = new Thread(this::accept, "scripted-http-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    String url(String scheme) {
        return scheme + "://127.0.0.1:" + port() + "/ingest";
    }

    int connections() {
        return connections.get();
    }

    List<Request> requests() {
        return new ArrayList<>(requests);
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                s.setTcpNoDelay(true);
                sockets.add(s);
                int id = connections.incrementAndGet();
                Thread t = new Thread(() -> serve(s, id), "scripted-http-" + id);
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket s, int id) {
        try (s) {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            String serial = null;
            if (s instanceof SSLSocket ssl) {
                ssl.startHandshake();
                serial = ((X509Certificate) ssl.getSession().getPeerCertificates()[0])
                        .getSerialNumber()
                        .toString(16);
            }
            while (true) {
                String requestLine = line(in);
                if (requestLine == null) {
                    return;
                }
                Map<String, String> headers = new LinkedHashMap<>();
                for (String h = line(in); h != null && !h.isEmpty(); h = line(in)) {
                    int colon = h.indexOf(':');
                    headers.put(
                            h.substring(0, colon).trim().toLowerCase(Locale.ROOT),
                            h.substring(colon + 1).trim());
                }
                int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
                byte[] body = in.readNBytes(length);
                Request r = new Request(id, requestLine, headers, body, serial);
                requests.add(r);
                if (!script.answer(r, out)) {
                    return;
                }
            }
        } catch (Exception e) {
            // the client went away, or the script closed the connection
        }
    }

    private static @Nullable String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int c = in.read(); c != -1; c = in.read()) {
            if (c == '\n') {
                String s = b.toString(StandardCharsets.ISO_8859_1);
                return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
            }
            b.write(c);
        }
        return null;
    }

    /** Writes an answer's status line and headers (each "Name: value"), and the blank line. */
    static void head(OutputStream out, String status, String... headers) throws IOException {
        StringBuilder b = new StringBuilder("HTTP/1.1 ").append(status).append("\r\n");
        for (String h : headers) {
            b.append(h).append("\r\n");
        }
        out.write(b.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    /** A 200 with a JSON body and its Content-Length, the connection kept alive. */
    static boolean ok(OutputStream out, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        head(out, "200 OK", "Content-Type: application/json", "Content-Length: " + body.length);
        out.write(body);
        out.flush();
        return true;
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : sockets) {
            s.close();
        }
    }
}
