package org.edgebridge.central;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import org.jspecify.annotations.Nullable;

/**
 * The request body as the bridge meant it: as sent, or inflated when it came with {@code Content-Encoding: gzip}.
 * Inflating stops at the same bound as a plain body ({@code maxRequestBytes}), so a zip bomb costs central that much
 * memory at most and is answered 413.
 */
final class RequestBodies {
    /** A body that is, or would inflate to, more than the bound. */
    static final class TooLarge extends IOException {
        TooLarge(long max) {
            super("the request body inflates to more than " + max + " bytes");
        }
    }

    /** Neither absent nor identity nor gzip. */
    static final class UnknownEncoding extends IOException {
        UnknownEncoding(String encoding) {
            super("Content-Encoding " + encoding + " is not supported (gzip or none)");
        }
    }

    private RequestBodies() {}

    static byte[] decode(byte[] raw, @Nullable String contentEncoding, long maxBytes) throws IOException {
        if (contentEncoding == null) {
            return raw;
        }
        String encoding = contentEncoding.trim().toLowerCase(Locale.ROOT);
        if (encoding.equals("identity")) {
            return raw;
        }
        if (!encoding.equals("gzip")) {
            throw new UnknownEncoding(contentEncoding);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(256, raw.length * 4));
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(raw))) {
            byte[] chunk = new byte[16 * 1024];
            int n;
            while ((n = in.read(chunk)) > 0) {
                if (out.size() + (long) n > maxBytes) {
                    throw new TooLarge(maxBytes);
                }
                out.write(chunk, 0, n);
            }
        }
        return out.toByteArray();
    }
}
