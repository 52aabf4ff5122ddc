package org.edgebridge.forward;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.MalformedURLException;
import java.net.Proxy;
import java.net.URL;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javax.net.ssl.HttpsURLConnection;
import org.edgebridge.forward.auth.ClientCertificateFiles;
import org.edgebridge.forward.auth.TlsContexts;
import org.edgebridge.worker.Workers;
import org.jspecify.annotations.Nullable;

/**
 * Sends request bodies to central with {@code HttpURLConnection} on the calling thread ({@code ingest.client=blocking}):
 * no hand-over to a selector or worker threads, with the guarantees of {@link IngestClient}:
 * <ul>
 *   <li>{@code ingest.timeout} bounds the whole exchange: the one thread of a {@link DeadlineSweeper} cuts an exchange
 *       past its deadline, by closing its TLS socket ({@link TlsSlots}) and, until the headers are in, by
 *       {@code disconnect()}; the reading thread also stops at the first bytes after the deadline. For an https://
 *       central only (the configuration refuses http://): a plain http:// body that stops altogether, no byte at
 *       all, would end only at the socket's read timeout, {@code ingest.timeout} after the last byte, since
 *       {@code disconnect()} blocks behind the JDK's read lock there. Its tests still use plain http where that
 *       does not matter.
 *   <li>the reply is read to at most {@code ingest.maxReplyBytes} ({@link CappedBody}'s words when cut);
 *   <li>connect timeout {@link ForwarderSettings.Requests#connectTimeout()}; {@code ingest.proxy} as a
 *       {@link Proxy} (https:// through it with CONNECT); HTTP/1.1, no redirect followed;
 *   <li>a fixed-length streamed body: HttpURLConnection never sends such a POST again by itself (it does resend
 *       buffered ones after some failures);
 *   <li>a reply read to its end goes back to the JDK's keep-alive cache; one cut (deadline, cap, error) is closed.
 * </ul>
 * Thread-safe: each exchange has its own connection object.
 */
final class BlockingIngestClient implements CentralClient {
    static {
        // HttpURLConnection hands the rest of a kept-alive body closed before its end (up to this many KiB, 512 by
        // default) to its "Keep-Alive-SocketCleaner" thread, which reads it on and puts the connection back in the
        // cache: a reply cut at the deadline would keep trickling in there (seen: SlowReplyIT), one cut at the cap
        // would be downloaded all the same. 0: such a connection is closed. Read once, when the JDK's KeepAliveStream
        // is first used; nothing else in the bridge uses HttpURLConnection before the forwarder starts.
        System.setProperty("http.KeepAlive.remainingData", "0");
    }

    private final ForwarderSettings settings;
    private final URL url;
    private final Proxy proxy;
    private final @Nullable CertificateBound<TlsSlots> tls;
    private final DeadlineSweeper sweeper;
    private final CutReplies cuts;
    private final WireBytes wire;
    private final int maxBytes;

    BlockingIngestClient(ForwarderSettings settings, Optional<ClientCertificateFiles> certificates, Workers workers) {
        this.settings = settings;
        try {
            this.url = settings.central().url().toURL();
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException(
                    "ingest.url=" + settings.central().url() + ": " + e.getMessage(), e);
        }
        this.proxy = settings.central()
                .proxy()
                .map(p -> new Proxy(Proxy.Type.HTTP, InetSocketAddress.createUnresolved(p.getHost(), p.getPort())))
                .orElse(Proxy.NO_PROXY);
        boolean https = "https".equalsIgnoreCase(url.getProtocol());
        this.tls = https
                ? new CertificateBound<>(
                        certificates,
                        certificate -> new TlsSlots(
                                TlsContexts.of(settings.credentials().caFile(), certificate)
                                        .getSocketFactory()))
                : null;
        if (tls != null) {
            tls.get(); // a TLS context that cannot be made fails the start, not the first request
        }
        this.sweeper = new DeadlineSweeper(workers);
        this.cuts = new CutReplies(settings.requests().timeout());
        this.wire = new WireBytes(https);
        this.maxBytes = settings.requests().maxReplyBytes().intBytes();
    }

    /**
     * One exchange with central on the calling thread, bounded as a whole by {@code ingest.timeout} and in size by
     * {@code ingest.maxReplyBytes}; past either the connection is closed and the request failed.
     *
     * @param bearer the token for {@code Authorization: Bearer}, if any ({@link CentralAuthorization})
     * @throws Error an Error (OutOfMemoryError) met while the reply was read: the calling worker dies of it
     */
    @Override
    public IngestReply post(String batchId, byte[] body, Optional<String> bearer) {
        CentralPost post = CentralPost.of(settings.central(), batchId, body, bearer, wire);
        if (Thread.currentThread().isInterrupted()) {
            return interrupted();
        }
        TlsSlots.Slot slot = tls == null ? null : tls.get().take();
        Exchange exchange =
                new Exchange(System.nanoTime() + settings.requests().timeout().toNanos(), slot);
        try {
            return exchange.run(post);
        } finally {
            sweeper.forget(exchange);
            if (slot != null) {
                slot.release();
            }
        }
    }

    private static IngestReply interrupted() {
        return IngestReply.transportFailure("interrupted (shutting down)");
    }

    /** The deadline passed while the reply was read. */
    private static final class PastDeadline extends IOException {
        PastDeadline() {
            super("past ingest.timeout");
        }
    }

    /** One exchange: its connection, its phase and whether the sweeper cut it. */
    private final class Exchange extends DeadlineSweeper.Watched {
        private final long deadline;
        private final TlsSlots.@Nullable Slot slot;
        private @Nullable HttpURLConnection connection; // guarded by this
        private boolean readingBody; // guarded by this
        private volatile boolean cut;
        private volatile boolean done;

        Exchange(long deadline, TlsSlots.@Nullable Slot slot) {
            super(deadline);
            this.deadline = deadline;
            this.slot = slot;
        }

        /**
         * On the sweeper's thread. Closing the TLS socket never blocks. {@code disconnect()} does not either before
         * the body (it closes the socket), but would while the body is read (behind the read lock of the JDK's
         * stream, until a byte comes), so it is left to the reading thread there.
         */
        @Override
        boolean cut() {
            if (done) {
                return false;
            }
            cut = true;
            if (slot != null) {
                slot.closeSocket();
            }
            synchronized (this) {
                if (!readingBody && connection != null) {
                    connection.disconnect();
                }
            }
            return !done;
        }

        private boolean pastDeadline() {
            return cut || System.nanoTime() - deadline >= 0;
        }

        IngestReply run(CentralPost post) {
            HttpURLConnection c;
            try {
                c = (HttpURLConnection) url.openConnection(proxy); // no I/O yet
            } catch (IOException e) {
                return failed(e);
            }
            configure(c, post);
            synchronized (this) {
                connection = c;
            }
            sweeper.watch(this);
            boolean kept = false;
            try {
                IngestReply reply = exchange(c, post);
                kept = true;
                return reply;
            } catch (CappedBody.TooLarge e) {
                return cuts.tooLarge(Objects.requireNonNull(e.getMessage())); // made with one
            } catch (IOException | RuntimeException e) { // HttpURLConnection cut from another thread may throw either
                if (pastDeadline()) {
                    return cuts.pastDeadline();
                }
                if (Thread.currentThread().isInterrupted()) {
                    return interrupted();
                }
                return failed(e);
            } finally {
                done = true;
                if (!kept) {
                    close(c);
                }
            }
        }

        private void configure(HttpURLConnection c, CentralPost post) {
            if (c instanceof HttpsURLConnection https && slot != null) {
                https.setSSLSocketFactory(slot);
            }
            c.setConnectTimeout((int) settings.requests().connectTimeout().toMillis());
            // a backstop: the deadline cuts sooner; a plain http:// body that stops altogether ends here
            c.setReadTimeout((int) settings.requests().timeout().toMillis());
            c.setInstanceFollowRedirects(false);
            c.setUseCaches(false);
            c.setDoOutput(true);
            try {
                c.setRequestMethod("POST");
            } catch (java.net.ProtocolException e) {
                throw new IllegalStateException(e); // POST is a method HttpURLConnection knows
            }
            c.setFixedLengthStreamingMode(post.onTheWire().length);
            post.headers().forEach(c::setRequestProperty);
        }

        /** Sends the request and reads the reply; throws for anything but a reply read whole. */
        private IngestReply exchange(HttpURLConnection c, CentralPost post) throws IOException {
            try (OutputStream out = c.getOutputStream()) { // connects (a CONNECT through the proxy), sends the head
                out.write(post.onTheWire());
            }
            int status = c.getResponseCode(); // waits for the headers
            synchronized (this) {
                readingBody = true;
            }
            if (pastDeadline()) {
                throw new PastDeadline();
            }
            Map<String, List<String>> headers = c.getHeaderFields();
            long declared = c.getContentLengthLong();
            if (declared > maxBytes) {
                throw new CappedBody.TooLarge(CappedBody.declaredTooLarge(declared, maxBytes));
            }
            // 4xx and 5xx: getInputStream() throws, the body is the error stream (none for a 401: the JDK closed it)
            InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
            byte[] body = in == null ? new byte[0] : read(in);
            if (in != null && declared >= 0 && body.length < declared) { // the JDK's stream ends there without a word
                throw new EOFException("central closed the connection after " + body.length + " of the " + declared
                        + " bytes its reply declared (Content-Length)");
            }
            wire.received(headers, body.length);
            return new IngestReply(
                    status,
                    body,
                    Optional.ofNullable(c.getHeaderField("Retry-After")),
                    Optional.ofNullable(c.getHeaderField("Location")),
                    null);
        }

        /** The body to its end, then closed: the connection goes back to the keep-alive cache. */
        private byte[] read(InputStream in) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            while (true) {
                int n = in.read(buffer, 0, (int) Math.min(buffer.length, maxBytes + 1L - bytes.size()));
                if (n < 0) {
                    break;
                }
                bytes.write(buffer, 0, n);
                if (bytes.size() > maxBytes) {
                    throw new CappedBody.TooLarge(CappedBody.readTooLarge(maxBytes));
                }
                if (pastDeadline()) { // a body that trickles in: stopped at its first bytes past the deadline
                    throw new PastDeadline();
                }
            }
            in.close();
            return bytes.toByteArray();
        }

        /**
         * Closes the connection of an exchange not read to its end, so that it never goes back to the keep-alive
         * cache: the TLS socket first (closing the stream could otherwise hand the rest of the body to the JDK's
         * keep-alive cleaner), then {@code disconnect()}.
         */
        private void close(HttpURLConnection c) {
            if (slot != null) {
                slot.closeSocket();
            }
            try {
                c.disconnect();
            } catch (RuntimeException e) {
                // closed as far as it goes
            }
        }

        private IngestReply failed(Throwable cause) {
            return IngestReply.transportFailure(TransportFailures.ofExchange(
                    settings.central(), tls == null ? Optional.empty() : tls.expiredPresented(), cause));
        }
    }

    @Override
    public WireBytes wire() {
        return wire;
    }

    @Override
    public Map<String, Long> cutReplies() {
        return cuts.counts();
    }

    /** Stops the deadline thread. */
    @Override
    public void close() {
        sweeper.close();
    }
}
