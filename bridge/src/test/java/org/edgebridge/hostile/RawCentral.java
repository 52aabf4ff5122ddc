package org.edgebridge.hostile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * A central on a raw server socket (127.0.0.1, any free port) that reads each HTTP/1.1 request itself and answers as
 * its {@link Behaviour} says: receipts like the reference central's (every event {@code accepted} the first time,
 * {@code duplicate} after), a bare HTTP status, a reset or a silently closed connection. Raw, so that it can do
 * what an HTTP server library is too polite to do. Keeps what it applied and every request it saw.
 *
 * <p>Threads: one acceptor and one per connection, all ended by {@link #close()}.
 */
public final class RawCentral implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One event of a request, as central saw it. */
    public record Event(String deviceId, String eventId) {}

    /** One request: when, its events, and what it was answered ({@link Answer#describe()}). */
    public record Request(Instant at, List<Event> events, String answer) {}

    /** What central does with one request. */
    public sealed interface Answer {
        String describe();
    }

    /** 200 with a receipt for every event but those of {@code withoutReceipt} (event ids). */
    public record Receipts(Set<String> withoutReceipt) implements Answer {
        public String describe() {
            return withoutReceipt.isEmpty() ? "200" : "200 without " + withoutReceipt;
        }
    }

    /** This status with a small error body, nothing applied; {@code retryAfter} sent verbatim unless null. */
    public record Status(int status, String retryAfter) implements Answer {
        public String describe() {
            return String.valueOf(status);
        }
    }

    /** The connection is reset (RST) before any reply, nothing applied. */
    public record Reset() implements Answer {
        public String describe() {
            return "reset";
        }
    }

    /** No reply at all: the connection stays open, read until the bridge gives up and closes it. */
    public record Silent() implements Answer {
        public String describe() {
            return "silent";
        }
    }

    /** What central answers to a request, from its events. */
    public interface Behaviour extends Function<List<Event>, Answer> {}

    public static final Answer OK = new Receipts(Set.of());

    private final ServerSocket server;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "raw-central");
        t.setDaemon(true);
        return t;
    });
    private final Map<Event, Instant> applied = new LinkedHashMap<>();
    private final List<Request> requests = new ArrayList<>();
    private final List<Socket> sockets = new ArrayList<>();
    private volatile Behaviour behaviour = events -> OK;

    public RawCentral() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        threads.execute(this::accept);
    }

    /** Any request holding this event id gets {@code poison}; every other request is answered normally. */
    public static Behaviour poisoned(String eventId, Answer poison) {
        return events -> events.stream().anyMatch(e -> e.eventId().equals(eventId)) ? poison : OK;
    }

    public void behave(Behaviour b) {
        behaviour = b;
    }

    public String url() {
        return "http://127.0.0.1:" + server.getLocalPort() + "/ingest";
    }

    public synchronized boolean applied(String deviceId, String eventId) {
        return applied.containsKey(new Event(deviceId, eventId));
    }

    public synchronized Map<Event, Instant> applied() {
        return Map.copyOf(applied);
    }

    public synchronized List<Request> requests() {
        return List.copyOf(requests);
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                synchronized (sockets) {
                    sockets.add(s);
                }
                threads.execute(() -> serve(s));
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void serve(Socket s) {
        try (s; InputStream in = new java.io.BufferedInputStream(s.getInputStream()); OutputStream out = s.getOutputStream()) {
            while (true) {
                byte[] body = readRequest(in);
                if (body == null) {
                    return;
                }
                List<Event> events = new ArrayList<>();
                JsonNode request = JSON.readTree(body);
                request.path("events").forEach(e -> events.add(new Event(e.path("deviceId").asText(), e.path("eventId").asText())));
                Answer a = behaviour.apply(events);
                synchronized (this) {
                    requests.add(new Request(Instant.now(), List.copyOf(events), a.describe()));
                }
                if (a instanceof Reset) {
                    s.setSoLinger(true, 0);
                    return;
                }
                if (a instanceof Silent) {
                    in.transferTo(OutputStream.nullOutputStream());
                    return;
                }
                if (a instanceof Status st) {
                    write(out, st.status(), st.retryAfter(), "{\"error\":\"fault\",\"message\":\"hostile central\"}");
                } else if (a instanceof Receipts r) {
                    write(out, 200, null, receipts(events, r.withoutReceipt()));
                }
            }
        } catch (IOException | RuntimeException e) {
            // the bridge went away, or close(): the connection ends
        }
    }

    private synchronized String receipts(List<Event> events, Set<String> withoutReceipt) throws IOException {
        ArrayNode list = JSON.createArrayNode();
        for (Event e : events) {
            if (withoutReceipt.contains(e.eventId())) {
                continue;
            }
            boolean first = applied.putIfAbsent(e, Instant.now()) == null;
            ObjectNode r = list.addObject();
            r.put("eventId", e.eventId());
            r.put("deviceId", e.deviceId());
            r.put("status", first ? "accepted" : "duplicate");
            r.putNull("code");
            r.putNull("message");
            r.putNull("result");
            r.putNull("retryAfterMs");
        }
        ObjectNode reply = JSON.createObjectNode();
        reply.set("receipts", list);
        return JSON.writeValueAsString(reply);
    }

    private static void write(OutputStream out, int status, String retryAfter, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        StringBuilder head = new StringBuilder("HTTP/1.1 " + status + " X\r\nContent-Type: application/json\r\n");
        if (retryAfter != null) {
            head.append("Retry-After: ").append(retryAfter).append("\r\n");
        }
        head.append("Content-Length: ").append(bytes.length).append("\r\n\r\n");
        out.write(head.toString().getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.flush();
    }

    /** The body of the next request on this connection, or null at its end. */
    private static byte[] readRequest(InputStream in) throws IOException {
        int length = -1;
        String line;
        boolean first = true;
        while ((line = readLine(in)) != null && !line.isEmpty()) {
            first = false;
            String lower = line.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-length:")) {
                length = Integer.parseInt(line.substring("content-length:".length()).trim());
            }
        }
        if (line == null || first || length < 0) {
            return null;
        }
        return in.readNBytes(length);
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != -1) {
            if (b == '\n') {
                return line.toString(StandardCharsets.US_ASCII).stripTrailing();
            }
            line.write(b);
        }
        return null;
    }

    @Override
    public void close() throws IOException {
        server.close();
        synchronized (sockets) {
            for (Socket s : sockets) {
                s.close();
            }
        }
        threads.shutdownNow();
    }
}
