package org.edgebridge.hostile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedInputStream;
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
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * A central that misbehaves on purpose, on raw sockets (127.0.0.1, any free port): an HTTP library would be too
 * polite to trickle a body, send 700 MB, reset a connection or never answer. It reads each HTTP/1.1 request itself,
 * records it, and answers it with the next {@link Reply} of its script ({@link #then}); once the script is used up,
 * with {@link #otherwise} ({@link #applying()} unless set). Replies that apply events keep a ledger like the
 * reference central's: an event is {@code accepted} the first time and {@code duplicate} after. A new scenario is one
 * more {@code Reply}.
 *
 * <p>Threads: one acceptor and one per connection, all ended by {@link #close()}. Thread-safe.
 */
final class HostileCentral implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();

    /** One event of a request, as central read it. */
    record Event(String deviceId, String eventId) {}

    /** One request as central read it, numbered from 1. */
    record Request(int number, Instant at, String head, byte[] body) {
        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        List<Event> events() {
            List<Event> out = new ArrayList<>();
            json().path("events")
                    .forEach(e -> out.add(new Event(
                            e.path("deviceId").asText(), e.path("eventId").asText())));
            return out;
        }

        boolean holds(String eventId) {
            return events().stream().anyMatch(e -> e.eventId().equals(eventId));
        }
    }

    /** Answers one request on its connection; the connection is closed after it unless it returns true. */
    interface Reply {
        boolean answer(Request request, Wire wire) throws IOException;
    }

    /** What a reply works with: the raw connection to the bridge (what is written is counted) and central's ledger. */
    final class Wire {
        private final Socket socket;
        private final InputStream in;
        private final OutputStream out;

        private Wire(Socket socket, InputStream in) throws IOException {
            this.socket = socket;
            this.in = in;
            this.out = new CountingOutput(socket.getOutputStream(), bytesWritten);
        }

        OutputStream out() {
            return out;
        }

        /** Whether central applies this event now for the first time (accepted) rather than again (duplicate). */
        boolean firstTime(Event e) {
            synchronized (HostileCentral.this) {
                return applied.putIfAbsent(e, Instant.now()) == null;
            }
        }

        /** Closes the connection with a TCP reset. */
        void reset() throws IOException {
            socket.setSoLinger(true, 0);
            socket.close();
        }

        /** Reads whatever comes until the bridge closes the connection. */
        void awaitClose() throws IOException {
            in.transferTo(OutputStream.nullOutputStream());
        }
    }

    private final ServerSocket server;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "hostile-central");
        t.setDaemon(true);
        return t;
    });
    private final Deque<Reply> script = new ArrayDeque<>();
    private final List<Request> requests = new ArrayList<>();
    private final Map<Event, Instant> applied = new LinkedHashMap<>();
    private final List<Socket> sockets = new ArrayList<>();
    private final AtomicLong bytesWritten = new AtomicLong();
    private final AtomicLong cutOffByBridge = new AtomicLong();
    private volatile Reply otherwise = applying();

    HostileCentral() {
        try {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        threads.execute(this::acceptLoop);
    }

    String url() {
        return "http://127.0.0.1:" + server.getLocalPort() + "/ingest";
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

    /** The events central applied (a receipt of {@link #applying} went out for them), with when it first did. */
    synchronized Map<Event, Instant> applied() {
        return Map.copyOf(applied);
    }

    synchronized boolean applied(String deviceId, String eventId) {
        return applied.containsKey(new Event(deviceId, eventId));
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

    /** As the reference central: applies every event, a receipt each ({@code accepted}, then {@code duplicate}). */
    static Reply applying() {
        return applyingWithout(Set.of());
    }

    /** As {@link #applying()}, but the events with these ids are neither applied nor given a receipt. */
    static Reply applyingWithout(Set<String> eventIds) {
        return applying(eventIds, "");
    }

    /** As {@link #applyingWithout}, with {@code extra} JSON members (or empty) in every receipt. */
    static Reply applying(Set<String> without, String extra) {
        return (request, wire) -> {
            StringBuilder b = new StringBuilder("{\"receipts\":[");
            for (Event e : request.events()) {
                if (!without.contains(e.eventId())) {
                    b.append(b.charAt(b.length() - 1) == '[' ? "" : ",")
                            .append(receipt(e, wire.firstTime(e) ? "accepted" : "duplicate", extra));
                }
            }
            return ok(wire, b.append("]}").toString());
        };
    }

    /** Requests that hold this event get {@code poison}; every other request is answered {@link #applying()}. */
    static Reply poisoned(String eventId, Reply poison) {
        Reply normal = applying();
        return (request, wire) -> (request.holds(eventId) ? poison : normal).answer(request, wire);
    }

    /** 200 with a receipt of this {@code status} per event, and {@code extra} fields (JSON members, or empty); applies nothing. */
    static Reply receipts(String status, String extra) {
        return json(r -> {
            List<String> receipts =
                    r.events().stream().map(e -> receipt(e, status, extra)).toList();
            return "{\"receipts\":[" + String.join(",", receipts) + "]}";
        });
    }

    /** 200 with this body. */
    static Reply json(Function<Request, String> body) {
        return (request, wire) -> ok(wire, body.apply(request));
    }

    static String receipt(Event event, String status, String extra) {
        return "{\"eventId\":" + quoted(event.eventId()) + ",\"deviceId\":" + quoted(event.deviceId())
                + ",\"status\":\"" + status + "\"" + (extra.isEmpty() ? "" : "," + extra) + "}";
    }

    private static String quoted(String s) {
        try {
            return JSON.writeValueAsString(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** This status with a small error body, nothing applied; {@code retryAfter} sent verbatim unless null. */
    static Reply status(int status, String retryAfter) {
        return (request, wire) -> {
            byte[] body = "{\"error\":\"fault\",\"message\":\"hostile central\"}".getBytes(StandardCharsets.UTF_8);
            String extra = retryAfter == null ? "" : "Retry-After: " + retryAfter + "\r\n";
            wire.out()
                    .write(("HTTP/1.1 " + status + " X\r\nContent-Type: application/json\r\n" + extra
                                    + "Content-Length: " + body.length + "\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            wire.out().write(body);
            wire.out().flush();
            return true;
        };
    }

    /** The connection is reset (RST) before any reply, nothing applied. */
    static Reply reset() {
        return (request, wire) -> {
            wire.reset();
            return false;
        };
    }

    /** No reply at all: the connection stays open, read until the bridge gives up and closes it. */
    static Reply silent() {
        return (request, wire) -> {
            wire.awaitClose();
            return false;
        };
    }

    /** Reads the request and closes the connection without a byte. */
    static Reply drop() {
        return (request, wire) -> false;
    }

    /** 200, the headers at once, then the body one byte every {@code every} (a valid receipts body, never finished in time). */
    static Reply trickle(Duration every) {
        return (request, wire) -> {
            byte[] body = ("{\"receipts\":["
                            + String.join(
                                    ",",
                                    request.events().stream()
                                            .map(e -> receipt(e, "accepted", ""))
                                            .toList()) + "]}")
                    .getBytes(StandardCharsets.UTF_8);
            OutputStream out = wire.out();
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
        return (request, wire) -> {
            OutputStream out = wire.out();
            out.write(
                    declareLength
                            ? head(200, bytes)
                            : "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
                                    .getBytes(StandardCharsets.US_ASCII));
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
        return (request, wire) -> {
            wire.out().write(head(200, 1000));
            wire.out().write("{\"receipts".getBytes(StandardCharsets.US_ASCII));
            wire.out().flush();
            return false;
        };
    }

    private static boolean ok(Wire wire, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        wire.out().write(head(200, bytes.length));
        wire.out().write(bytes);
        wire.out().flush();
        return true;
    }

    static byte[] head(int status, long contentLength) {
        return ("HTTP/1.1 " + status + " X\r\nContent-Type: application/json\r\nContent-Length: " + contentLength
                        + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
    }

    // ---- the server

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                synchronized (sockets) {
                    sockets.add(socket);
                }
                threads.execute(() -> serve(socket));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            InputStream in = new BufferedInputStream(socket.getInputStream());
            Wire wire = new Wire(socket, in);
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
                    keepOpen = reply.answer(request, wire);
                } catch (IOException e) {
                    cutOffByBridge.incrementAndGet();
                    return;
                }
            }
        } catch (IOException | RuntimeException e) {
            // the bridge went away, or close()
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
            return new Request(requests.size() + 1, Instant.now(), text, body);
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        synchronized (sockets) {
            for (Socket s : sockets) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
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

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            count.incrementAndGet();
        }
    }
}
