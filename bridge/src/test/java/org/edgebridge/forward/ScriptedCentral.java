package org.edgebridge.forward;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.edgebridge.TestClock;
import org.edgebridge.forward.BlameScenario.Failure;

/**
 * Central as a {@link BlameScenario} scripts it, answering the real forwarder without HTTP and on the simulation's
 * clock: a request that hangs moves the clock by {@code ingest.timeout}. It applies each event at most once, as a real
 * central's inbox does, and records what the checks need: every event it ever received (also in a request it then
 * failed or let time out), the order in which it applied each device's events, and how long each step waited on it.
 */
final class ScriptedCentral implements IngestPort {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** -Dblame.trace=true prints every request and its outcome. */
    private static final boolean TRACE = Boolean.getBoolean("blame.trace");

    private final BlameScenario scenario;
    private final TestClock clock;
    private final Duration timeout;
    private final Random random;
    /** Every event that reached central, in any request. */
    final Set<String> received = new HashSet<>();
    /** Applied events: device/commandId to the sequence. */
    final Map<String, Long> applied = new HashMap<>();
    /** Per device, the highest sequence applied. */
    private final Map<String, Long> highest = new HashMap<>();

    final List<String> orderViolations = new ArrayList<>();
    int requests;
    /** Requests central failed while it answers others (a poison's), and all requests with a poison. */
    Instant lastAnsweredAt = Instant.EPOCH;

    /** While a probe is sent apart: what it took, instead of moving the clock. */
    private boolean apart;

    private Duration took = Duration.ZERO;

    /** Runs {@code send} (a probe sent apart) without moving the clock. @return how long central took */
    Duration apart(Runnable send) {
        apart = true;
        took = Duration.ZERO;
        try {
            send.run();
            return took;
        } finally {
            apart = false;
        }
    }

    ScriptedCentral(BlameScenario scenario, TestClock clock, Duration timeout) {
        this.scenario = scenario;
        this.clock = clock;
        this.timeout = timeout;
        this.random = new Random(scenario.seed() * 31 + 7);
    }

    @Override
    public IngestReply post(String batchId, byte[] body, Optional<String> bearer) {
        requests++;
        JsonNode request = read(body);
        List<JsonNode> events = new ArrayList<>();
        request.path("events").forEach(events::add);
        events.forEach(e -> received.add(key(e)));
        Instant now = clock.instant();
        Optional<Failure> failure = scenario.central().stream()
                .filter(s -> s.covers(now))
                .filter(s -> s.share() >= 1 || random.nextDouble() < s.share())
                .map(BlameScenario.Segment::failure)
                .findFirst();
        if (failure.isEmpty()) {
            failure = events.stream()
                    .map(e -> scenario.poisons().get(e.path("eventId").asText()))
                    .filter(java.util.Objects::nonNull)
                    .findFirst();
        }
        if (TRACE) {
            System.out.println("  " + now + " request " + requests + " "
                    + events.stream().map(e -> e.path("eventId").asText()).toList() + " -> "
                    + failure.map(Enum::name).orElse("answered"));
        }
        if (failure.isPresent()) {
            return fail(failure.get(), events);
        }
        lastAnsweredAt = now;
        ObjectNode reply = JSON.createObjectNode();
        ArrayNode receipts = reply.putArray("receipts");
        for (JsonNode e : events) {
            receipts.add(receipt(e, apply(e) ? "accepted" : "duplicate"));
        }
        return new IngestReply(200, bytes(reply), Optional.empty(), Optional.empty(), null);
    }

    private IngestReply fail(Failure failure, List<JsonNode> events) {
        switch (failure) {
            case TIMEOUT:
                if (apart) {
                    took = timeout;
                } else {
                    clock.advance(timeout);
                }
                if (random.nextBoolean()) {
                    events.forEach(this::apply); // central applied them; the reply was lost
                }
                return IngestReply.timeout(timeout.toMillis());
            case RESET:
                if (random.nextInt(4) == 0) {
                    events.forEach(this::apply);
                }
                return IngestReply.transportFailure("connection to central:443 reset");
            case NO_RECEIPTS:
                return new IngestReply(
                        200, "{}".getBytes(StandardCharsets.UTF_8), Optional.empty(), Optional.empty(), null);
            case MAINTENANCE_200:
                return new IngestReply(
                        200,
                        "<html>maintenance</html>".getBytes(StandardCharsets.UTF_8),
                        Optional.empty(),
                        Optional.empty(),
                        null);
            case JUNK_RECEIPTS: {
                ObjectNode reply = JSON.createObjectNode();
                ArrayNode receipts = reply.putArray("receipts");
                events.forEach(e -> receipts.add(receipt(e, "queued")));
                return new IngestReply(200, bytes(reply), Optional.empty(), Optional.empty(), null);
            }
            case RETRY_LATER: {
                ObjectNode reply = JSON.createObjectNode();
                ArrayNode receipts = reply.putArray("receipts");
                events.forEach(e -> receipts.add(receipt(e, "retry_later").put("retryAfterMs", 0)));
                return new IngestReply(200, bytes(reply), Optional.empty(), Optional.empty(), null);
            }
            default: {
                int status = Integer.parseInt(failure.name().substring(1));
                return new IngestReply(
                        status,
                        ("{\"error\":\"" + status + "\"}").getBytes(StandardCharsets.UTF_8),
                        status == 503 ? Optional.of("5") : Optional.empty(),
                        Optional.empty(),
                        null);
            }
        }
    }

    /** Applies an event once; @return false for a duplicate. */
    private boolean apply(JsonNode e) {
        String device = e.path("deviceId").asText();
        long sequence = e.path("sequence").asLong();
        if (applied.putIfAbsent(key(e), sequence) != null) {
            return false;
        }
        Long before = highest.get(device);
        if (before != null && before > sequence) {
            orderViolations.add(device + ": sequence " + sequence + " applied after " + before);
        }
        highest.merge(device, sequence, Math::max);
        return true;
    }

    private static ObjectNode receipt(JsonNode e, String status) {
        ObjectNode r = JSON.createObjectNode();
        r.put("eventId", e.path("eventId").asText());
        r.put("deviceId", e.path("deviceId").asText());
        r.put("status", status);
        return r;
    }

    static String key(JsonNode e) {
        return e.path("deviceId").asText() + "/" + e.path("eventId").asText();
    }

    private static JsonNode read(byte[] body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] bytes(JsonNode json) {
        try {
            return JSON.writeValueAsBytes(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
