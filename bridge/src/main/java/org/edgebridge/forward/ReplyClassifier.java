package org.edgebridge.forward;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.edgebridge.code.ReceiptCode;
import org.edgebridge.outbox.ClaimedEvent;
import org.edgebridge.outbox.CommandState;
import org.edgebridge.outbox.Settlement;
import org.jspecify.annotations.Nullable;

/** Turns central's reply into a {@link RequestOutcome}. Pure apart from the clock; thread-safe. */
final class ReplyClassifier {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_BODY_IN_REASON = 200;
    /**
     * 4xx that say ingest.url, ingest.token or the proxy is wrong: they pause forwarding for every device. 403 is
     * hunted first ({@link RequestOutcome.Cause#FORBIDDEN}): a firewall before central answers it to one event too.
     */
    private static final Set<Integer> CONFIGURATION_FAULTS = Set.of(401, 404, 405, 407, 410);

    private final ForwarderSettings settings;
    private final Clock clock;
    private final AloneFailures alone;

    /** @param alone how an event central left out of a reply that answers others is counted */
    ReplyClassifier(ForwarderSettings settings, Clock clock, AloneFailures alone) {
        this.settings = settings;
        this.clock = clock;
        this.alone = alone;
    }

    RequestOutcome classify(IngestReply reply, List<ClaimedEvent> events) {
        int status = reply.status();
        if (status == 0) {
            RequestOutcome.Cause cause = reply.timedOut()
                    ? RequestOutcome.Cause.TIMED_OUT
                    : TransportFailures.droppedAfterConnect(reply.transportError())
                            ? RequestOutcome.Cause.DROPPED
                            : RequestOutcome.Cause.UNREACHABLE;
            return new RequestOutcome.Failed("central unreachable: " + reply.transportError(), cause);
        }
        if (status >= 200 && status < 300) {
            return receipts(reply, events);
        }
        String reason = "HTTP " + status + bodyExcerpt(reply.body());
        if (status >= 300 && status < 400) {
            return new RequestOutcome.Refused(
                    "HTTP " + status
                            + reply.location()
                                    .map(l -> " to " + ReceiptCheck.excerpt(l))
                                    .orElse(" (no Location)")
                            + ": ingest.url is not central's ingest endpoint (redirects are not followed: a POST "
                            + "must not be sent somewhere else unchecked)",
                    true);
        }
        if (status == 429) {
            return new RequestOutcome.Throttled(retryAfter(reply.retryAfter()).orElse(Duration.ZERO), reason);
        }
        if (status == 503) {
            // mostly central as a whole (its Retry-After is waited), but it may follow one event (a gateway before a
            // central that dies on it): hunted like any 5xx
            return new RequestOutcome.Failed(
                    reason,
                    RequestOutcome.Cause.UNAVAILABLE,
                    retryAfter(reply.retryAfter()).orElse(Duration.ZERO));
        }
        if (status == 413) {
            return new RequestOutcome.Failed(reason, RequestOutcome.Cause.TOO_LARGE);
        }
        if (status == 400 || status == 422) {
            return new RequestOutcome.Failed(reason, RequestOutcome.Cause.BAD_REQUEST);
        }
        if (status >= 500) {
            return new RequestOutcome.Failed(reason, RequestOutcome.Cause.SERVER_ERROR);
        }
        if (status == 403) {
            return new RequestOutcome.Failed(reason, RequestOutcome.Cause.FORBIDDEN);
        }
        if (CONFIGURATION_FAULTS.contains(status) || status < 200) {
            return new RequestOutcome.Refused(reason, false);
        }
        // another 4xx (409, 415, 418, ...) is no sign of a wrong URL or credential: it may follow one event, so it is
        // hunted like a 5xx instead of pausing every device of the site
        return new RequestOutcome.Failed(reason, RequestOutcome.Cause.REFUSED);
    }

    private RequestOutcome receipts(IngestReply reply, List<ClaimedEvent> events) {
        if (events.isEmpty()) {
            return new RequestOutcome.Answered(List.of(), List.of()); // a report of expired commands: any 2xx took it
        }
        JsonNode list;
        try {
            list = JSON.readTree(reply.body()).get("receipts");
        } catch (IOException | RuntimeException e) {
            list = null;
        }
        // a 2xx that answers no event at all (no receipts array, or none of the events in it) fails the request
        // like a 5xx: hunted, so that a central that answers so for a while parks nothing (no proof that it answers
        // other events) and one poison event answered so is isolated and parked as central_no_receipt; an event left
        // out of a reply that answers others takes the no-receipt path below (that reply is the proof)
        if (list == null || !list.isArray()) {
            return new RequestOutcome.Failed(
                    "central answered " + reply.status() + " without a receipts array" + bodyExcerpt(reply.body()),
                    RequestOutcome.Cause.NO_RECEIPTS);
        }
        ReceiptCheck.Checked checked =
                ReceiptCheck.check(list, events, settings.requests().receiptCaps());
        if (checked.believed().isEmpty()) {
            // no receipt central can be believed on (none, or only unknown statuses or oversized fields): the request
            // failed as a whole, like a 5xx; blaming every event of it would park a backlog for central's fault
            return new RequestOutcome.Failed(
                    "central answered " + reply.status()
                            + " without a believable receipt for any"
                            + " of the " + events.size() + " events" + bodyExcerpt(reply.body()),
                    RequestOutcome.Cause.NO_RECEIPTS,
                    Duration.ZERO,
                    checked.problems());
        }
        Map<Long, String> why = new HashMap<>();
        checked.problems().forEach(p -> {
            if (p.eventRowId() != null) {
                why.put(p.eventRowId(), p.detail());
            }
        });
        boolean answersOthers = events.stream()
                .map(e -> checked.believed().get(e.id()))
                .anyMatch(r -> r != null && !r.path("status").asText("").equals("retry_later"));
        Instant now = clock.instant();
        List<Settlement> settlements = new ArrayList<>(events.size());
        for (ClaimedEvent e : events) {
            JsonNode r = checked.believed().get(e.id());
            if (r == null) {
                String problem = why.getOrDefault(e.id(), "no receipt central can be believed on");
                // counted only when the same reply gave other events a final receipt: central processes events now
                settlements.add(
                        answersOthers
                                ? noReceipt(e, problem, now)
                                : new Settlement.RetryLater(e.id(), now.plus(backoff(e.attempt())), problem, false));
                continue;
            }
            String receiptStatus = r.path("status").asText("");
            if (receiptStatus.equals("retry_later")) {
                // central's retryAfterMs, clamped, but never shorter than the per-event backoff of the event's
                // attempts: a central that sheds load with "retry_later in 0 ms" would otherwise burn the event's
                // forwarder.maxAttempts in a fraction of a second and park the whole backlog
                JsonNode after = r.get("retryAfterMs");
                Duration floor = backoff(e.attempt());
                Duration asked = after != null && after.isNumber() && after.asDouble() >= 0
                        ? clamp(
                                after.canConvertToLong()
                                        ? Duration.ofMillis(after.asLong())
                                        : settings.retries().maxRetryAfter())
                        : floor;
                Duration wait = asked.compareTo(floor) >= 0 ? asked : floor;
                String code = text(r, "code");
                // toward forwarder.maxAttempts only while central gives other events of the reply a final receipt: a
                // retry_later to everything is central shedding load, and parks nothing however long it lasts
                settlements.add(new Settlement.RetryLater(
                        e.id(),
                        now.plus(wait),
                        "central: retry_later" + (code == null ? "" : " / " + code),
                        answersOthers));
            } else {
                settlements.add(new Settlement.Final(
                        e.id(), CommandState.fromDb(receiptStatus), text(r, "code"), text(r, "message"), result(r)));
            }
        }
        return new RequestOutcome.Answered(settlements, checked.problems());
    }

    /**
     * An event central answered without a (believable) receipt: a contract violation that counts toward parking
     * (code {@code central_no_receipt}), so that a central that leaves one event out cannot hold its device for ever.
     */
    Settlement noReceipt(ClaimedEvent e, String why, Instant now) {
        return alone.settle(e, ReceiptCode.CENTRAL_NO_RECEIPT.wire(), false, why, now);
    }

    /** A per-event wait when central gives none: backoffInitial doubled per attempt, capped at backoffMax. */
    Duration backoff(int attempt) {
        return backoff(settings, attempt);
    }

    /** {@link #backoff(int)} of these settings. */
    static Duration backoff(ForwarderSettings settings, int attempt) {
        int doublings = Math.min(Math.max(attempt - 1, 0), 30);
        Duration d = settings.retries().backoff().initial().multipliedBy(1L << doublings);
        return d.compareTo(settings.retries().backoff().max()) > 0
                ? settings.retries().backoff().max()
                : d;
    }

    /** A wait that central asked for, at most {@code forwarder.maxRetryAfter}: central's numbers are not trusted. */
    Duration clamp(Duration fromCentral) {
        return fromCentral.compareTo(settings.retries().maxRetryAfter()) > 0
                ? settings.retries().maxRetryAfter()
                : fromCentral;
    }

    /** Retry-After as seconds or an HTTP date (RFC 9110 §10.2.3), at most {@code forwarder.maxRetryAfter}. */
    Optional<Duration> retryAfter(Optional<String> header) {
        if (header.isEmpty() || header.get().isBlank()) {
            return Optional.empty();
        }
        String value = header.get().trim();
        if (value.matches("[0-9]{19,}")) {
            return Optional.of(clamp(Duration.ofSeconds(Long.MAX_VALUE))); // more seconds than a long holds
        }
        try {
            long seconds = Long.parseLong(value);
            return Optional.of(clamp(Duration.ofSeconds(Math.max(0, seconds))));
        } catch (NumberFormatException notSeconds) {
            try {
                Instant at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME)
                        .toInstant();
                Duration d = Duration.between(clock.instant(), at);
                return Optional.of(d.isNegative() ? Duration.ZERO : clamp(d));
            } catch (DateTimeParseException notDate) {
                return Optional.empty();
            }
        }
    }

    private static @Nullable String text(JsonNode r, String field) {
        JsonNode n = r.get(field);
        return n == null || n.isNull() ? null : n.asText();
    }

    private static @Nullable String result(JsonNode r) {
        JsonNode n = r.get("result");
        return n == null || n.isNull() ? null : n.toString();
    }

    private static String bodyExcerpt(byte[] body) {
        if (body == null || body.length == 0) {
            return "";
        }
        String text = new String(body, 0, Math.min(body.length, MAX_BODY_IN_REASON), StandardCharsets.UTF_8).strip();
        return text.isEmpty() ? "" : ": " + text.replaceAll("\\s+", " ");
    }
}
