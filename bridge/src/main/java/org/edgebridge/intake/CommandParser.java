package org.edgebridge.intake;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;
import java.util.regex.Pattern;
import org.edgebridge.broker.InboundPublish;
import org.edgebridge.code.ReceiptCode;
import org.edgebridge.outbox.NewCommand;
import org.jspecify.annotations.Nullable;

/**
 * Validates a command payload (docs/protocol.md §1.4). Pure and thread-safe.
 * The payload is forwarded unchanged: parsing here only reads {@code commandId}, {@code type} and {@code expiresAt}.
 */
public final class CommandParser {
    static final Pattern COMMAND_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}");
    /** A command type: levels of the commandId characters separated by {@code /}, 1-128 characters in all. */
    static final Pattern TYPE = Pattern.compile("(?=.{1,128}$)[A-Za-z0-9._:@-]+(/[A-Za-z0-9._:@-]+)*");

    static final String TYPE_RULE = "1-128 chars: levels of [A-Za-z0-9._:@-] separated by /";

    private final int maxPayloadBytes;
    private final JsonLimits limits;
    /** An {@code expiresAt}: a four-digit year (0000-9999), so that it is a small number of milliseconds everywhere. */
    /** {@code intake.maxExpiresIn}'s default. */
    static final Duration DEFAULT_MAX_EXPIRES_IN = Duration.ofDays(366);

    private final ExpiryRules expiry;
    private final Duration maxExpiresIn;
    private final ObjectMapper json;

    public CommandParser(int maxPayloadBytes, JsonLimits limits) {
        this(maxPayloadBytes, limits, ExpiryRules.NONE);
    }

    public CommandParser(int maxPayloadBytes, JsonLimits limits, ExpiryRules expiry) {
        this(maxPayloadBytes, limits, expiry, DEFAULT_MAX_EXPIRES_IN);
    }

    /**
     * @param maxExpiresIn latest {@code expiresAt} accepted, after the command's arrival ({@code intake.maxExpiresIn})
     */
    public CommandParser(int maxPayloadBytes, JsonLimits limits, ExpiryRules expiry, Duration maxExpiresIn) {
        this.maxPayloadBytes = maxPayloadBytes;
        this.limits = limits;
        this.expiry = expiry;
        this.maxExpiresIn = maxExpiresIn;
        JsonFactory factory = JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder()
                        .maxNestingDepth(limits.maxDepth())
                        .maxStringLength(limits.maxStringLength())
                        .maxNameLength(limits.maxStringLength())
                        .maxNumberLength(limits.maxNumberLength())
                        .build())
                .build();
        this.json = JsonMapper.builder(factory)
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .disable(JsonParser.Feature.ALLOW_COMMENTS)
                .build();
    }

    /** The outcome of parsing: a command to store, or a rejection with a stable code. */
    public sealed interface Parsed {
        String payloadSha256();
    }

    public record Valid(NewCommand command) implements Parsed {
        @Override
        public String payloadSha256() {
            return command.payloadSha256();
        }
    }

    /** @param commandId the commandId if one valid id could be read, else null */
    public record Invalid(@Nullable String commandId, ReceiptCode code, String message, String payloadSha256)
            implements Parsed {}

    public Parsed parse(InboundPublish publish) {
        byte[] payload = publish.payload();
        String sha = sha256(payload);
        if (payload.length > maxPayloadBytes) {
            return new Invalid(
                    topLevelCommandId(payload),
                    ReceiptCode.PAYLOAD_TOO_LARGE,
                    "payload has " + payload.length + " bytes; at most " + maxPayloadBytes + " are accepted",
                    sha);
        }
        JsonNode root;
        try {
            String text = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(payload))
                    .toString();
            root = json.readTree(text);
        } catch (StreamConstraintsException e) {
            return new Invalid(
                    null,
                    ReceiptCode.JSON_LIMIT_EXCEEDED,
                    "payload's JSON is too deep or has too long a string or number; "
                            + "at most depth " + limits.maxDepth() + ", strings of " + limits.maxStringLength()
                            + " characters, numbers of " + limits.maxNumberLength() + " characters",
                    sha);
        } catch (IOException e) {
            root = null;
        }
        if (root == null || root.isMissingNode()) {
            return new Invalid(null, ReceiptCode.INVALID_JSON, "payload is not UTF-8 JSON", sha);
        }
        if (!root.isObject()) {
            return new Invalid(null, ReceiptCode.INVALID_JSON, "payload must be a JSON object", sha);
        }
        JsonNode idNode = root.get("commandId");
        if (idNode == null || idNode.isNull()) {
            return new Invalid(null, ReceiptCode.MISSING_COMMAND_ID, "payload has no commandId", sha);
        }
        String commandId = validCommandId(idNode);
        if (commandId == null) {
            return new Invalid(
                    null,
                    ReceiptCode.INVALID_COMMAND_ID,
                    "commandId must be 1-128 chars of [A-Za-z0-9._:@-], starting with a letter or digit",
                    sha);
        }
        JsonNode typeNode = root.get("type");
        boolean typeGiven = typeNode != null && !typeNode.isNull();
        // a payload's type that is there must itself keep the rule: a number, an object or "" is not "absent"
        String type = typeGiven ? (typeNode.isTextual() ? typeNode.asText() : null) : publish.type();
        if (type == null || !TYPE.matcher(type).matches()) {
            return new Invalid(
                    commandId,
                    ReceiptCode.INVALID_TYPE,
                    "the command type (the topic levels after commands/, or the payload's type) must be " + TYPE_RULE,
                    sha);
        }
        JsonNode expiresNode = root.get("expiresAt");
        Optional<Instant> expiresAt = expiry.expiresAt(type, publish.receivedAt());
        if (expiresNode != null && !expiresNode.isNull()) {
            Optional<Instant> own = timestamp(expiresNode);
            if (own.isEmpty()) {
                return new Invalid(
                        commandId,
                        ReceiptCode.INVALID_EXPIRES_AT,
                        "expiresAt must be an RFC 3339 date and time with an "
                                + "offset and a four-digit year, such as 2026-12-02T18:30:00Z",
                        sha);
            }
            if (own.get().isAfter(publish.receivedAt().plus(maxExpiresIn))) {
                return new Invalid(
                        commandId,
                        ReceiptCode.INVALID_EXPIRES_AT,
                        "expiresAt is more than " + maxExpiresIn.toDays()
                                + " days (intake.maxExpiresIn) after the command's arrival; send a nearer one or none",
                        sha);
            }
            expiresAt = expiresAt.isPresent() && expiresAt.get().isBefore(own.get()) ? expiresAt : own;
        }
        return new Valid(new NewCommand(
                publish.clientId(), commandId, publish.topic(), type, payload, sha, publish.receivedAt(), expiresAt));
    }

    /**
     * The commandId of a payload too large to take, for its receipt: read by streaming the top level only (nothing
     * else is kept), null when the payload is not a JSON object within the limits or has no valid id.
     */
    private @Nullable String topLevelCommandId(byte[] payload) {
        try (JsonParser parser = json.getFactory().createParser(payload)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                if ("commandId".equals(field)) {
                    return value == JsonToken.VALUE_STRING
                                    && COMMAND_ID.matcher(parser.getText()).matches()
                            ? parser.getText()
                            : null;
                }
                parser.skipChildren();
            }
            return null;
        } catch (IOException e) {
            return null;
        }
    }

    /** An RFC 3339 date and time ({@link Rfc3339}); empty for anything else. */
    private static Optional<Instant> timestamp(JsonNode node) {
        return node.isTextual() ? Rfc3339.parse(node.asText()) : Optional.empty();
    }

    private static @Nullable String validCommandId(JsonNode node) {
        if (node == null || !node.isTextual()) {
            return null;
        }
        String id = node.asText();
        return COMMAND_ID.matcher(id).matches() ? id : null;
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
