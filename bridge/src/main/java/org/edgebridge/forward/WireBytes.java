package org.edgebridge.forward;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.edgebridge.outbox.ClaimedEvent;

/**
 * The bytes exchanged with central since start, as well as the bridge can count them from above the JDK's HTTP client:
 * each request's line, headers and body as sent (gzipped with {@code ingest.compression=gzip}), each reply's status
 * line, headers and body, and with https:// the TLS records' overhead (22 bytes a record of up to 16 KiB); not the TLS
 * handshakes (a few KB per new connection: connections are kept alive) nor TCP/IP headers. Also the bodies before
 * compression (for the compression ratio) and, per device, the payload bytes of its events sent (resends count
 * again), for at most {@link #MAX_DEVICES} devices: the rest count together as {@link #OTHER_DEVICES}, so that devices
 * cannot grow this map. Thread-safe; read by the data budget (org.edgebridge.budget).
 */
public final class WireBytes {
    public static final int MAX_DEVICES = 1000;
    public static final String OTHER_DEVICES = "(other devices)";
    private static final int TLS_RECORD = 16 * 1024;
    private static final int TLS_RECORD_OVERHEAD = 22;
    /** What the HTTP client adds to a request's headers: Host, Content-Length, User-Agent, Connection (about). */
    private static final int CLIENT_HEADERS = 90;

    private final boolean tls;
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong received = new AtomicLong();
    private final AtomicLong bodies = new AtomicLong();
    private final AtomicLong wireBodies = new AtomicLong();
    private final Map<String, LongAdder> perDevice = new ConcurrentHashMap<>();

    public WireBytes(boolean tls) {
        this.tls = tls;
    }

    /**
     * A request went out: {@code head} its line and headers, {@code body} before and {@code wireBody} after
     * compression.
     */
    public void sent(long head, long body, long wireBody) {
        sent.addAndGet(withTls(head + CLIENT_HEADERS + wireBody));
        bodies.addAndGet(body);
        wireBodies.addAndGet(wireBody);
    }

    /** A reply came: its status line, headers (a null name, HttpURLConnection's status line, is left out) and body. */
    public void received(Map<String, List<String>> headers, long body) {
        received.addAndGet(withTls("HTTP/1.1 200 OK\r\n".length() + headBytes(headers) + body));
    }

    /** The events of a request, by device: their payload bytes. */
    public void events(List<ClaimedEvent> events) {
        for (ClaimedEvent e : events) {
            String device = perDevice.containsKey(e.clientId()) || perDevice.size() < MAX_DEVICES
                    ? e.clientId()
                    : OTHER_DEVICES;
            perDevice.computeIfAbsent(device, d -> new LongAdder()).add(e.payload().length);
        }
    }

    static long headBytes(Map<String, List<String>> headers) {
        long n = 2; // the blank line
        for (Map.Entry<String, List<String>> h : headers.entrySet()) {
            if (h.getKey() == null) {
                continue;
            }
            for (String v : h.getValue()) {
                n += h.getKey().length() + 2 + v.length() + 2;
            }
        }
        return n;
    }

    private long withTls(long bytes) {
        return tls ? bytes + (bytes + TLS_RECORD - 1) / TLS_RECORD * TLS_RECORD_OVERHEAD : bytes;
    }

    public long sentBytes() {
        return sent.get();
    }

    public long receivedBytes() {
        return received.get();
    }

    /** Request bodies before compression, and as sent: their ratio is the compression's. */
    public long bodyBytes() {
        return bodies.get();
    }

    public long wireBodyBytes() {
        return wireBodies.get();
    }

    /** Payload bytes sent per device since start (at most {@link #MAX_DEVICES} + 1 entries). */
    public Map<String, Long> perDevice() {
        Map<String, Long> out = new HashMap<>();
        perDevice.forEach((d, n) -> out.put(d, n.sum()));
        return out;
    }
}
