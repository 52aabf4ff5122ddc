package org.edgebridge.central;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The exact bytes of each event's {@code payload} in a request body, in event order. The reference central
 * checks them against {@code payloadSha256}, which proves the bridge forwards a device's JSON unchanged.
 */
final class RawPayloads {
    private static final JsonFactory JSON = new JsonFactory();

    private RawPayloads() {}

    /** @return one entry per element of {@code events}: the raw payload value, or null if it has none */
    static List<byte @Nullable []> of(byte[] body) throws IOException {
        List<byte @Nullable []> payloads = new ArrayList<>();
        try (JsonParser p = JSON.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return payloads;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (field.equals("events") && value == JsonToken.START_ARRAY) {
                    while (p.nextToken() == JsonToken.START_OBJECT) {
                        payloads.add(payloadOf(p, body));
                    }
                } else {
                    p.skipChildren();
                }
            }
        }
        return payloads;
    }

    private static byte @Nullable [] payloadOf(JsonParser p, byte[] body) throws IOException {
        byte @Nullable [] payload = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            if (field.equals("payload")) {
                long start = p.currentTokenLocation().getByteOffset();
                p.skipChildren();
                long end = p.currentLocation().getByteOffset();
                payload = Arrays.copyOfRange(body, (int) start, (int) end);
            } else {
                p.skipChildren();
            }
        }
        return payload;
    }
}
