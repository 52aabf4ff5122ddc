package org.edgebridge.forward;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.zip.GZIPOutputStream;

/**
 * How a request body goes to central ({@code ingest.compression}). {@code forwarder.maxBytes} bounds the body
 * before compression, so a batch is the same whichever is chosen.
 */
public enum Compression {
    NONE,
    GZIP;

    /** The {@code Content-Encoding} header to send, if any. */
    public Optional<String> contentEncoding() {
        return this == GZIP ? Optional.of("gzip") : Optional.empty();
    }

    /** The bytes to send for {@code body}. */
    public byte[] encode(byte[] body) {
        if (this == NONE) {
            return body;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length / 4 + 64);
        try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
            gzip.write(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // in memory: cannot happen
        }
        return out.toByteArray();
    }
}
