package org.edgebridge.forward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.edgebridge.config.ConfigLoader;
import org.edgebridge.outbox.ClaimedEvent;
import org.junit.jupiter.api.Test;

/**
 * forwarder.maxBytes bounds the serialized request: {@link IngestRequest#eventBytes} is an upper bound of what goes
 * out.
 */
class IngestRequestTest {
    private final ForwarderSettings settings =
            ConfigLoader.load(null, List.of("edge.id=site-01")).forwarder();

    private static ClaimedEvent event(int i, String device, String type, String payload) {
        return new ClaimedEvent(
                i,
                device,
                "CMD-" + i,
                Long.MAX_VALUE - i,
                "devices/" + device + "/commands/" + type,
                type,
                payload.getBytes(StandardCharsets.UTF_8),
                "a".repeat(64),
                Instant.parse("2026-11-29T06:33:00.123456789Z"),
                Integer.MAX_VALUE,
                0,
                Optional.empty());
    }

    private long envelope() {
        return settings.batching().maxBytes().intBytes() - IngestRequest.eventBudget(settings);
    }

    private static long sizes(List<ClaimedEvent> events) {
        return events.stream()
                .mapToLong(e ->
                        IngestRequest.eventBytes(e.clientId(), e.commandId(), e.type(), e.topic(), e.payload().length))
                .sum();
    }

    @Test
    void the_body_is_never_longer_than_the_envelope_plus_the_sizes_of_its_events_whatever_their_strings() {
        List<ClaimedEvent> events = new ArrayList<>();
        events.add(event(1, "dev-\"quoted\"\\", "t/\u0001\u001f\n\t", "{\"a\":\"\\u0000\"}"));
        events.add(event(2, "gerät-ü", "typ/é€😀", "{\"b\":\"😀€\"}"));
        events.add(event(3, "d", "x".repeat(60_000), "{}"));
        events.add(event(4, "d\uD800", "lone/\uDC00surrogate", "{}"));
        ClaimedEvent e5 = event(5, "d", "t", "{}");
        events.add(new ClaimedEvent(
                5,
                "d",
                "CMD-5",
                5,
                e5.topic(),
                "t",
                e5.payload(),
                e5.payloadSha256(),
                e5.receivedAt(),
                1,
                0,
                Optional.of(Instant.parse("2026-11-29T06:33:00.123456789Z"))));
        byte[] body = IngestRequest.body("site-01", BatchIds.next(), events);
        assertThat((long) body.length).isLessThanOrEqualTo(envelope() + sizes(events));
        assertThat(new String(body, StandardCharsets.UTF_8))
                .contains("\"expiresAt\":\"2026-11-29T06:33:00.123456789Z\"");
    }

    @Test
    void for_plain_ascii_the_bound_is_within_48_bytes_an_event_of_the_real_size() {
        List<ClaimedEvent> events = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            // the expiry is counted whether an event has one or not: the bound is tight with it
            events.add(new ClaimedEvent(
                    i,
                    "dev-" + i,
                    "C-" + i,
                    i,
                    "devices/dev-" + i + "/commands/t",
                    "t",
                    "{\"n\":1}".getBytes(StandardCharsets.UTF_8),
                    "b".repeat(64),
                    Instant.EPOCH,
                    1,
                    0,
                    Optional.of(Instant.parse("2026-11-29T06:33:00.123Z"))));
        }
        byte[] body = IngestRequest.body("site-01", BatchIds.next(), events);
        assertThat(envelope() + sizes(events) - body.length).isBetween(0L, 48L * events.size());
    }
}
