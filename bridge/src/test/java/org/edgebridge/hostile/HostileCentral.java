package org.edgebridge.hostile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * A central that misbehaves on purpose, on raw sockets (an HTTP library would be too polite to trickle a body, send
 * 700 MB or cut a connection mid-reply). It reads each request on 127.0.0.1, records it, and answers it with the next
 * {@link Reply} of its script; once the script is used up, with {@link #otherwise}. A new scenario is one more
 * {@code Reply}. Thread-safe.
 */
final class HostileCentral implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();

    /** One request as central read it, numbered from 1. */
    record Request(int number, String head, byte[] body) {
        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        List<JsonNode> events() {
            List<JsonNode> out = new ArrayList<>();
            json().path("events").forEach(out::add);
            return out;
        }
    }

    /** Writes the answer to one request on the raw connection; the connection is closed after it unless it returns true. */
    interface Reply {
        boolean answer(Request request, OutputStream out) throws IOException;
    }

    private final ServerSocket server;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "hostile-central");
        t.setDaemon(true);
        return t;
    });
    private final Deque<Reply> script = new ArrayDeque<>();
    private final List<Request> requests = new ArrayList<>();
    private final AtomicLong bytesWritten = new AtomicLong();
    private final AtomicLong cutOffByBridge = new AtomicLong();
    private volatile Reply otherwise = accepting();

    HostileCentral() {
        try {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        threads.execute(this::acceptLoop);
    }

    int port() {
        return server.getLocalPort();
    }

    String url() {
        return "http://127.0.0.1:" + port() + "/ingest";
    }

    /** The next requests get these replies, in order. */
    synchronized HostileCentral then(Reply... replies) {
        script.addAll(List.of(replies));
        return this;
    }

    /** Requests after the script get this reply. */
    HostileCentral otherwise(Reply reply) {
        this.otherwise = reply;
        return this;
    }

    synchronized List<Request> requests() {
        return List.copyOf(requests);
    }

    /** Body bytes central wrote in all its replies (what reached the socket, not what the bridge read). */
    long bytesWritten() {
        return bytesWritten.get();
    }

    /** Replies the bridge cut off: the connection was closed while central was still writing. */
    long cutOffByBridge() {
        return cutOffByBridge.get();
    }

    // ---- replies

    /** 200 with a receipt per event: {@code status} and {@code extra} fields (JSON members, or empty). */
    static Reply receipts(String status, String extra) {
        return json(r -> receiptsFor(r, status, extra));
    }

    static Reply accepting() {
        return receipts("accepted", "");
    }

    /** 200 with this body. */
    static Reply json(Function<Request, String> body) {
        return (request, out) -> {
            byte[] bytes = body.apply(request).getBytes(StandardCharsets.UTF_8);
            out.write(head(200, bytes.length));
            out.write(bytes);
            out.flush();
            return true;
        };
    }

    static String receiptsFor(Request r, String status, String extra) {
        StringBuilder b = new StringBuilder("{\"receipts\":[");
        List<JsonNode> events = r.events();
        for (int i = 0; i < events.size(); i++) {
            b.append(i == 0 ? "" : ",").append(receipt(events.get(i), status, extra));
        }
        return b.append("]}").toString();
    }

    static String receipt(JsonNode event, String status, String extra) {
        return "{\"eventId\":" + event.path("eventId") + ",\"deviceId\":" + event.path("deviceId") + ",\"status\":\""
                + status + "\"" + (extra.isEmpty() ? "" : "," + extra) + "}";
    }

    /** 200, the headers at once, then the body one byte every {@code every} (a valid receipts body, never finished in time). */
    static Reply trickle(Duration every) {
        return (request, out) -> {
            byte[] body = receiptsFor(request, "accepted", "").getBytes(StandardCharsets.UTF_8);
            out.write(head(200, body.length));
            out.flush();
            for (byte b : body) {
                out.write(b);
                out.flush();
                try {
                    Thread.sleep(every.toMillis()); // the misbehaviour itself: central's pace, not a wait for a result
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return false;
        };
    }

    /** 200 with a body of {@code bytes} spaces, streamed (central holds 64 KiB of it at a time). */
    static Reply huge(long bytes, boolean declareLength) {
        return (request, out) -> {
            out.write(declareLength ? head(200, bytes)
                    : "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] chunk = new byte[64 * 1024];
            java.util.Arrays.fill(chunk, (byte) ' ');
            for (long left = bytes; left > 0; left -= chunk.length) {
                out.write(chunk, 0, (int) Math.min(chunk.length, left));
            }
            out.flush();
            return false;
        };
    }

    /** 200 with {@code Content-Length: 1000}, ten bytes of it, then the connection closed. */
    static Reply truncated() {
        return (request, out) -> {
            out.write(head(200, 1000));
            out.write("{\"receipts".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return false;
        };
    }

    /** Reads the request and closes the connection without a byte. */
    static Reply drop() {
        return (request, out) -> false;
    }

    static byte[] head(int status, long contentLength) {
        return ("HTTP/1.1 " + status + " X\r\nContent-Type: application/json\r\nContent-Length: " + contentLength + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
    }

    // ---- the server

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                threads.execute(() -> serve(socket));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            InputStream in = socket.getInputStream();
            CountingOutput out = new CountingOutput(socket.getOutputStream(), bytesWritten);
            boolean keepOpen = true;
            while (keepOpen) {
                Request request = read(in);
                if (request == null) {
                    return;
                }
                Reply reply;
                synchronized (this) {
                    requests.add(request);
                    reply = script.isEmpty() ? otherwise : script.poll();
                }
                try {
                    keepOpen = reply.answer(request, out);
                } catch (IOException e) {
                    cutOffByBridge.incrementAndGet();
                    return;
                }
            }
        } catch (IOException e) {
            // the bridge went away
        }
    }

    private Request read(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                return null;
            }
            head.write(b);
            matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        String text = head.toString(StandardCharsets.ISO_8859_1);
        int length = 0;
        for (String line : text.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        byte[] body = in.readNBytes(length);
        synchronized (this) {
            return new Request(requests.size() + 1, text, body);
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        threads.shutdownNow();
    }

    /** Counts what central writes of its bodies and headers. */
    private static final class CountingOutput extends java.io.FilterOutputStream {
        private final AtomicLong count;

        CountingOutput(OutputStream out, AtomicLong count) {
            super(out);
            this.count = count;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            count.addAndGet(len);
        }
    }
}
